-- A printed photo held to the camera never blinks: the interaction times
-- out with 1007.
return {
  name = "blink: a still photo never passes",
  flow = "../../liveness-blink.lua",
  input = "../../traces/face-still-photo.jsonl",
  expect = {
    result = { code = 1007, reason = "interaction_timeout" },
    events = { "status:INTERACTION_STARTED", "status:EYES_OPENED", "status:INTERACTION_FAILED", "status:INTERACTION_ENDED" },
    absent = { "status:EYES_CLOSED" },
  },
}
