-- A flow with a Lua syntax error on line 6.
local wb = require "wb"

return wb.flow {
  name = "syntax error",
  steps = { wb.step("broken", function(m, ctx) return m.t > then end) },
}
