-- The face turns to the camera and holds still: the best shot is taken.
return {
  name = "{{name}}: a face held still gets its best shot",
  flow = "../{{name}}.lua",
  input = { synth = "../scenes/pass.json" },
  expect = { result = 0, events = { "capture:best_shot", "step:best shot:passed" } },
}
