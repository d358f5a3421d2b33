-- A flow whose hint key only the English catalog of its folder has.
local wb = require "wb"

return wb.flow {
  name = "missing key",
  steps = {
    wb.range { name = "front", field = "face.yaw", min = -5, max = 5, hint = "fixture.only_english" },
  },
}
