local wb = require "wb"

return wb.flow {
  name = "late",
  steps = {
    wb.threshold { name = "turn left", field = "face.yaw", above = 20, timeout = 1 },
  },
}
