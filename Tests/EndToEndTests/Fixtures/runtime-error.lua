-- A step that indexes a nil value on its first frame.
local wb = require "wb"

local function broken(m, ctx)
  local missing = nil
  return missing.field > 1
end

return wb.flow {
  name = "runtime error",
  steps = { wb.step("broken", broken) },
}
