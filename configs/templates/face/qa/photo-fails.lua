-- A photo held still never blinks: the blink interaction times out, with
-- LUNA ID's code 1007, and the turn is never asked for.
return {
  name = "{{name}}: a photo held still fails with 1007",
  flow = "../{{name}}.lua",
  input = { synth = "../scenes/photo.json" },
  expect = {
    result = { code = 1007, reason = "interaction_timeout" },
    events = { "step:blink:failed", "status:LIVENESS_FAILED" },
    absent = { "step:turn left" },
  },
}
