local wb = require "wb"
return wb.flow {
  name = "random turns",
  random = { pick = 2 },
  delay = 0.5,
  steps = {
    wb.threshold { name = "left", field = "face.yaw", above = 20, crossing = false },
    wb.threshold { name = "right", field = "face.yaw", below = -20, crossing = false },
    wb.threshold { name = "up", field = "face.pitch", above = 15, crossing = false },
  },
}
