-- A hint whose parameter is a number too large for a whole-number display.
local wb = require "wb"

return wb.flow {
  name = "huge hint parameter",
  messages = { "flow.seconds_left" },
  steps = {
    wb.step("show", function(m, ctx)
      ctx.hint("flow.seconds_left", { seconds = 1e20 })
      return true
    end),
  },
}
