-- A real face blinking once (the bundled recording, measured by the face
-- estimator): the blink is seen at the frames it happens.
return {
  name = "blink: a real blink in a recording passes",
  flow = "../../liveness-blink.lua",
  input = "../../recordings/face-blink.avi",
  expect = {
    result = 0,
    events = { "status:INTERACTION_STARTED", "status:EYES_OPENED", "status:EYES_CLOSED", "status:EYES_OPENED_AGAIN",
               "status:INTERACTION_SUCCESS", "status:INTERACTION_ENDED" },
    within = { ["status:EYES_CLOSED"] = { min = 0.8, max = 0.95 } },
  },
}
