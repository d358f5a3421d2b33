-- Mistakes found while a flow is being built are collected, not raised one
-- at a time, so that `workbench check` can list all of them at once.

local problems = { list = {} }

function problems.add(message)
  problems.list[#problems.list + 1] = message
end

-- Checks a step spec's fields against `allowed` (name -> Lua type),
-- collecting a problem for each unknown field or wrong type.
function problems.check_fields(kind, spec, allowed, where)
  for key, value in pairs(spec) do
    local expected = allowed[key]
    if expected == nil then
      local known = {}
      for name in pairs(allowed) do known[#known + 1] = name end
      table.sort(known)
      problems.add(where .. kind .. ": unknown field '" .. tostring(key) .. "' (known: " .. table.concat(known, ", ") .. ")")
    elseif type(value) ~= expected then
      problems.add(where .. kind .. ": field '" .. key .. "' must be a " .. expected .. ", not a " .. type(value))
    end
  end
end

-- Raises every collected problem as one error, one per line.
function problems.raise(level)
  if #problems.list == 0 then return end
  local text = table.concat(problems.list, "\n")
  problems.list = {}
  error(text, 0)
end

return problems
