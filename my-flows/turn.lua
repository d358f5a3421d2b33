local wb = require "wb"

return wb.flow {
  name = "turn left",
  steps = {
    wb.threshold { name = "turn left", field = "face.yaw", above = 20,
                   hint = "face.turn_left", timeout = 8 },
  },
}
