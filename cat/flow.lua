local wb = require "wb"

return wb.flow {
  name = "catalog demo",
  steps = {
    wb.step {
      name = "hold", hint = "card.hold", hint_params = { seconds = 2 },
      update = function(self, m, ctx)
        ctx.hint("no.such.key")
        return wb.text("brace", { name = "x" }) ~= nil
      end,
    },
  },
}
