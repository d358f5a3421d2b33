-- A flow with several mistakes in its use of the flow API.
local wb = require "wb"

return wb.flow {
  name = "api mistakes",
  colour = "blue",
  time_limit = "soon",
  steps = {
    wb.threshold { name = "no field", above = 1 },
    wb.range { name = "inverted", field = "face.yaw", min = 5, max = -5 },
    wb.step { name = "no update", speed = 3 },
  },
}
