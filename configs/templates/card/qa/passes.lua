-- The card does what the flow asks: it passes.
return {
  name = "{{name}}: front-on, a flip right and back pass",
  flow = "../{{name}}.lua",
  input = { synth = "../scenes/pass.json" },
  expect = { result = 0, events = { "step:front-on:passed", "step:flip right:passed", "step:back:passed" } },
}
