-- A step that loops in Lua for a long time on its first frame.
local wb = require "wb"

return wb.flow {
  name = "busy step",
  time_limit = 0,
  step_timeout = 0,
  steps = {
    wb.step("busy", function(m, ctx)
      local n = 0
      while true do n = n + 1 end
    end),
  },
}
