-- Sensor noise and a hand over part of the picture for a second; duplicated
-- and swapped frames on top. The check passes once the picture is clear.
return {
  name = "frames: noise, an occluding patch, duplicates and a swap",
  flow = "../../image-quality.lua",
  input = "../../recordings/face-blink.avi",
  faults = {
    { noise = { from = 0, to = 0.5, amplitude = 60 } },
    { occlude = { from = 0.5, to = 1.0, x = 0.0, y = 0.0, w = 0.5, h = 1.0 } },
    { duplicate = { at = 1.2, count = 2 } },
    { reorder = { at = 1.5 } },
  },
  expect = { result = 0 },
}
