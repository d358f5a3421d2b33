local wb = require "wb"

return wb.flow {
  name = "ret",
  steps = {
    function(m, ctx) return 42 end,
  },
}
