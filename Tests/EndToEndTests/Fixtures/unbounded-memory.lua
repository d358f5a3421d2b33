-- A step that keeps every string it makes.
local wb = require "wb"

return wb.flow {
  name = "unbounded memory",
  steps = {
    wb.step("hoard", function(m, ctx)
      local kept = {}
      local i = 0
      while true do
        i = i + 1
        kept[i] = string.rep("x", 1000) .. i
      end
    end),
  },
}
