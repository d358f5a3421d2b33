-- A dark room: the hint says too dark and the check never passes.
return {
  name = "image quality: darkness",
  flow = "../../image-quality.lua",
  input = "../../recordings/face-blink.avi",
  faults = { { darken = { factor = 0.2 } } },
  expect = { result = { reason = "end_of_input" }, events = { "hint:quality.too_dark" }, absent = { "step:good picture:passed" } },
}
