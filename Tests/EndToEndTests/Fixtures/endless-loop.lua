-- A step that never returns.
local wb = require "wb"

return wb.flow {
  name = "endless loop",
  steps = {
    wb.step("spin", function(m, ctx)
      while true do end
    end),
  },
}
