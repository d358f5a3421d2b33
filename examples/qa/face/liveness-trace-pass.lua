-- The original liveness flow on its example trace, with a tenth of the
-- frames dropped: it still passes.
return {
  name = "liveness: passes with 10% of the frames dropped",
  flow = "../../liveness.lua",
  input = "../../traces/liveness-pass.jsonl",
  seed = 11,
  faults = { { drop = 0.1 } },
  expect = { result = 0, events = { "status:FACE_FOUND", "step:blink:passed", "step:turn left:passed", "status:LIVENESS_PASSED" } },
}
