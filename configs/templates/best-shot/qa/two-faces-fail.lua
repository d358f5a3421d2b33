-- Two faces: no frame has one face to shoot; the step times out with
-- LUNA ID's code for the last rejection, 1003 (multiple faces).
return {
  name = "{{name}}: two faces fail with 1003",
  flow = "../{{name}}.lua",
  input = { synth = "../scenes/two-faces.json" },
  expect = { result = { code = 1003, reason = "multiple_faces" }, absent = { "capture:best_shot" } },
}
