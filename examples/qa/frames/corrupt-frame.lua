-- One corrupt JPEG: it is skipped and reported, and the run goes on.
return {
  name = "frames: a corrupt JPEG is skipped",
  flow = "../../image-quality.lua",
  input = "../../recordings/face-blink.avi",
  faults = { { corrupt = { frame = 3 } } },
  expect = { result = 0, events = { "frame_skipped" }, count = { frame_skipped = 1 } },
}
