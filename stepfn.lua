local wb = require "wb"

return wb.flow {
  name = "forms",
  steps = {
    wb.step(function(m, ctx) ctx.log("wb.step(fn) got", type(m), m.t) return true end),
    function(m, ctx) return true end,
    wb.step("named", function(m, ctx) return true end),
  },
}
