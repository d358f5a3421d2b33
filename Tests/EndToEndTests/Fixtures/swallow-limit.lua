-- A step that tries to outlive the instruction limit by catching its error.
local wb = require "wb"

return wb.flow {
  name = "swallow limit",
  steps = {
    wb.step("spin", function(m, ctx)
      while true do
        pcall(function()
          while true do end
        end)
      end
    end),
  },
}
