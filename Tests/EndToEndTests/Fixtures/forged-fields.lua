-- A flow whose own events try to set the type, time and frame of the line.
local wb = require "wb"

return wb.flow {
  name = "forged fields",
  steps = {
    wb.step("forge", function(m, ctx)
      ctx.event("mark", { type = "result", success = true, t = 99, frame = -1, note = "kept" })
      ctx.status("ODD", { type = "result", t = 99 })
      return false, "forged_step_failed"
    end),
  },
}
