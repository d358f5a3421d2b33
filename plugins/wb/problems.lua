-- Mistakes found while a flow is being built are collected, not raised one
-- at a time, so that `workbench check` can list all of them at once.

local problems = { list = {}, reads = {} }

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

-- Notes a measurement a step reads, where the flow names it, so that
-- `workbench check` can hold it against what the estimators provide:
-- `test` is "number" when the step compares it with numbers.
function problems.read(field, test, where)
  -- Once the flow is prepared, a getter made on every frame must not grow the list.
  if problems.prepared or type(field) ~= "string" then return end
  problems.reads[#problems.reads + 1] = { field = field, test = test, where = where }
end

-- Notes every name of a step's `needs` list.
function problems.read_needs(needs, where)
  if type(needs) ~= "table" then return end
  for _, field in ipairs(needs) do problems.read(field, nil, where) end
end

-- Raises every collected problem as one error, one per line.
function problems.raise(level)
  if #problems.list == 0 then return end
  local text = table.concat(problems.list, "\n")
  problems.list = {}
  error(text, 0)
end

return problems
