local wb = require "wb"

return wb.flow {
  name = "broken",
  time_limt = 10,
  steps = {
    wb.threshold { field = "face.yaw", above = 20, below = -20 },
    wb.range { field = "face.yaw", min = 5, max = -5 },
    wb.step { name = "x" },
    42,
  },
  random = { pick = 9 },
  codes = { time_limit = -3 },
}
