local wb = require "wb"

local function eyes(m)
  return m.face and m.face.ear_left and math.min(m.face.ear_left, m.face.ear_right)
end

return wb.flow {
  name = "blink",
  steps = {
    wb.sequence { name = "blink", hint = "face.blink",
      wb.threshold { value = eyes, below = 0.15, hint = "face.look_straight" },
      wb.threshold { value = eyes, above = 0.25, within_ms = 500, hint = "face.turn_left" },
    },
  },
}
