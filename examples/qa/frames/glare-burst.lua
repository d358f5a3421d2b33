-- A burst of glare for the first second (a bright reflection: the flow
-- says too bright), then a good picture.
return {
  name = "image quality: a glare burst, then a pass",
  flow = "../../image-quality.lua",
  input = "../../recordings/face-blink.avi",
  faults = { { glare = { from = 0, to = 1.0, share = 0.25 } } },
  expect = { result = 0, events = { "hint:quality.too_bright", "hint:quality.hold_still", "step:good picture:passed" },
             within = { ["step:good picture:passed"] = { min = 1.0 } } },
}
