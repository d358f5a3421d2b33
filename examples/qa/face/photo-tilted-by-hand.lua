-- A face photo turned by hand can look like a head turn (the yaw changes),
-- but it never blinks: the liveness flow asks for the blink first.
return {
  name = "liveness: a photo tilted by hand fails at the blink",
  flow = "../../liveness.lua",
  input = "../../traces/face-still-photo.jsonl",
  faults = { { measure = { field = "face.yaw", add = 35, from = 2.0, to = 4.0 } } },
  expect = { result = { reason = "step_timeout" }, events = { "step:blink:started", "step:blink:failed" },
             absent = { "step:turn left:started" } },
}
