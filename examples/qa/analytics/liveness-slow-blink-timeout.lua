-- Eyes closed for a whole second: the blink step runs out of time, which
-- is Uqudo's FACE_TIMEOUT; the head turn never starts and is a SKIP.
return {
  name = "analytics: a slow blink ends with FACE_TIMEOUT",
  flow = "../../liveness.lua",
  input = "../../traces/liveness-slow-blink.jsonl",
  expect = {
    result = { code = 1, reason = "step_timeout" },
    analytics = {
      "START", "IN_PROGRESS:FACE_INCORRECT_POSITION_DETECTED", "COMPLETE:SUCCESS", "COMPLETE:SUCCESS",
      "COMPLETE:FAILURE:FACE_TIMEOUT", "SKIP", "FINISH:FAILURE:FACE_TIMEOUT",
    },
  },
}
