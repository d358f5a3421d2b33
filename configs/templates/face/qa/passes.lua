-- The face does what the flow asks: it passes.
return {
  name = "{{name}}: a blink and a turn to the left pass",
  flow = "../{{name}}.lua",
  input = { synth = "../scenes/pass.json" },
  expect = {
    result = 0,
    events = { "step:blink:passed", "step:turn left:passed", "status:LIVENESS_PASSED" },
  },
}
