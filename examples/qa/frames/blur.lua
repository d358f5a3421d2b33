-- Out of focus the whole time.
return {
  name = "image quality: blur",
  flow = "../../image-quality.lua",
  input = "../../recordings/face-blink.avi",
  faults = { { blur = { radius = 8 } } },
  expect = { result = { reason = "end_of_input" }, events = { "hint:quality.blurry" } },
}
