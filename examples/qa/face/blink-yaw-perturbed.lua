-- The measured yaw jumps by 20° for a second mid-run (an estimator glitch):
-- the blink interaction does not care, and passes.
return {
  name = "blink: a yaw glitch does not matter",
  flow = "../../liveness-blink.lua",
  input = "../../traces/liveness-pass.jsonl",
  faults = { { measure = { field = "face.yaw", add = 20, from = 2, to = 3 } } },
  expect = { result = 0 },
}
