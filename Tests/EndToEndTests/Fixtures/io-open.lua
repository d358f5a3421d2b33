-- A step that tries to read a file.
local wb = require "wb"

return wb.flow {
  name = "io open",
  steps = {
    wb.step("read", function(m, ctx)
      local file = io.open("/etc/passwd")
      return file ~= nil
    end),
  },
}
