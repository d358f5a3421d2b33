-- The camera goes away during the blink: CAMERA_NOT_AVAILABLE, on the face page.
return {
  name = "analytics: an unplugged camera is CAMERA_NOT_AVAILABLE",
  flow = "../../liveness-blink.lua",
  input = "../../recordings/face-blink.avi",
  faults = { { unplug = { at = 0.3 } } },
  expect = {
    result = { code = -4, reason = "camera_lost" },
    exit = 4,
    analytics = { "START", "COMPLETE:FAILURE:CAMERA_NOT_AVAILABLE", "FINISH:FAILURE:CAMERA_NOT_AVAILABLE" },
  },
}
