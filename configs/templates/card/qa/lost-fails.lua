-- The card leaves the frame: after lost_ms the guard ends the flow, code 3.
return {
  name = "{{name}}: a card taken away fails as lost",
  flow = "../{{name}}.lua",
  input = { synth = "../scenes/lost.json" },
  expect = { result = { code = 3, reason = "lost" }, absent = { "step:flip right:passed" } },
}
