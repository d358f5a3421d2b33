-- A step that tries to run a shell command.
local wb = require "wb"

return wb.flow {
  name = "os execute",
  steps = {
    wb.step("shell", function(m, ctx)
      os.execute("touch workbench-should-not-exist")
      return true
    end),
  },
}
