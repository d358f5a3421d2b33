-- A step whose pattern match would backtrack for a very long time.
local wb = require "wb"

return wb.flow {
  name = "pathological pattern",
  steps = {
    wb.step("match", function(m, ctx)
      return string.rep("a", 100000):find(".-.-.-b") ~= nil
    end),
  },
}
