-- The camera goes away 0.3 s in: result camera_lost, exit 4.
return {
  name = "frames: the camera unplugged mid-run",
  flow = "../../image-quality.lua",
  input = "../../recordings/face-blink.avi",
  faults = { { unplug = { at = 0.3 } } },
  expect = { result = { code = -4, reason = "camera_lost" }, exit = 4 },
}
