-- A replay attack: the recorded clip (one blink, no head movement) looped
-- three times. A random challenge asks for head movements the clip does not
-- have, so the first one times out with 1007 (seed 5 draws look down,
-- turn left, turn right).
return {
  name = "random challenge: a looped video fails",
  flow = "../../liveness-random.lua",
  input = "../../recordings/face-blink.avi",
  seed = 5,
  faults = { { replay = 3 } },
  expect = {
    result = { code = 1007, reason = "interaction_timeout" },
    events = { "status:INTERACTION_STARTED", "status:LIVENESS_FAILED" },
    absent = { "status:INTERACTION_SUCCESS" },
  },
}
