-- The fields every step of wb/face.lua and wb/identity.lua takes besides
-- its own (name -> Lua type, as problems.check_fields reads them).

local face_step_fields = {}

local common = {
  name = "string", timeout = "number", hint = "string", hint_params = "table", hints = "table",
  start = "function", passed = "function",
}

-- The common fields and a step's `own` in one table.
function face_step_fields.with(own)
  local all = {}
  for name, kind_of in pairs(common) do all[name] = kind_of end
  for name, kind_of in pairs(own) do all[name] = kind_of end
  return all
end

return face_step_fields
