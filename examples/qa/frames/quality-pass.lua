-- The image-quality flow on the bundled recording passes.
return {
  name = "image quality: the bundled recording passes",
  flow = "../../image-quality.lua",
  input = "../../recordings/face-blink.avi",
  expect = { result = 0, events = { "hint:quality.hold_still", "step:good picture:passed" } },
}
