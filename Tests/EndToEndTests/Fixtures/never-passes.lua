-- A step that never passes and never times out (for Ctrl-C tests).
local wb = require "wb"

return wb.flow {
  name = "never passes",
  time_limit = 0,
  step_timeout = 0,
  steps = {
    wb.step("wait", function(m, ctx) return nil end),
  },
}
