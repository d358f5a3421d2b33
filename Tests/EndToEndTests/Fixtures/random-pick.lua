-- Three steps that pass at once, drawn in random order, two of them.
local wb = require "wb"

return wb.flow {
  name = "random pick",
  random = { pick = 2 },
  steps = {
    wb.step("alpha", function(m, ctx) return true end),
    wb.step("beta", function(m, ctx) return true end),
    wb.step("gamma", function(m, ctx) return true end),
  },
}
