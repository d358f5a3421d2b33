-- A printed photo never blinks: the blink is not done in time, which is
-- Uqudo's FACE_LIVENESS_FAILED, for the step and for the run.
return {
  name = "analytics: a still photo ends with FACE_LIVENESS_FAILED",
  flow = "../../liveness-blink.lua",
  input = "../../traces/face-still-photo.jsonl",
  expect = {
    result = { code = 1007, reason = "interaction_timeout" },
    analytics = {
      "START", "IN_PROGRESS:FACE_INTERACTION_STARTED", "COMPLETE:FAILURE:FACE_LIVENESS_FAILED",
      "FINISH:FAILURE:FACE_LIVENESS_FAILED",
    },
  },
}
