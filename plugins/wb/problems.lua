-- Mistakes found while a flow is being built are collected, not raised one
-- at a time, so that `workbench check` can list all of them at once.

local problems = { list = {}, reads = {} }

function problems.add(message)
  problems.list[#problems.list + 1] = message
end

-- The field names of `tables`, sorted, as an unknown field's problem lists them.
local function known_fields(tables)
  local known = {}
  for _, t in ipairs(tables) do
    for name in pairs(t) do known[#known + 1] = name end
  end
  table.sort(known)
  return table.concat(known, ", ")
end

-- Checks a spec's fields against `tables` (each name -> Lua type, or "any";
-- the first that names a field gives its type), collecting a problem for
-- each unknown field or wrong type; keys that are not strings are left
-- alone when `strings_only`. Fields are checked in sorted order, so that a flow's problems come in the
-- same order on every run (pairs follows string hashes, seeded per state).
local function check(kind, spec, tables, where, strings_only)
  local keys = {}
  for key in pairs(spec) do
    if not strings_only or type(key) == "string" then keys[#keys + 1] = key end
  end
  table.sort(keys, function(a, b)
    if type(a) ~= type(b) then return type(a) < type(b) end
    if type(a) == "string" or type(a) == "number" then return a < b end
    return tostring(a) < tostring(b)
  end)
  for _, key in ipairs(keys) do
    local value = spec[key]
    local expected
    for _, t in ipairs(tables) do
      if expected == nil then expected = t[key] end
    end
    if expected == nil then
      problems.add(where .. kind .. ": unknown field '" .. tostring(key) .. "' (known: " .. known_fields(tables) .. ")")
    elseif expected ~= "any" and type(value) ~= expected then
      problems.add(where .. kind .. ": field '" .. key .. "' must be a " .. expected .. ", not a " .. type(value))
    end
  end
end

-- Checks a spec's fields against `allowed` (name -> Lua type), collecting a
-- problem for each unknown field or wrong type.
function problems.check_fields(kind, spec, allowed, where)
  check(kind, spec, { allowed }, where, false)
end

-- The same for a step of wb/steps.lua: its own `fields` and the `common`
-- ones every step has; its list part (a sequence's sub-steps) is not fields.
function problems.check_step_fields(kind, spec, fields, common, where)
  check(kind, spec, { fields, common }, where, true)
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

local function edit_distance(a, b)
  local previous = {}
  for j = 0, #b do previous[j] = j end
  for i = 1, #a do
    local current = { [0] = i }
    for j = 1, #b do
      local cost = a:byte(i) == b:byte(j) and 0 or 1
      current[j] = math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
    end
    previous = current
  end
  return previous[#b]
end

-- The name among the keys of `tables` closest to `name`, when one is
-- close enough to be a typo of it; nil otherwise.
function problems.closest(name, tables)
  local best, best_distance = nil, math.max(2, #name // 3) + 1
  for _, t in ipairs(tables) do
    for key in pairs(t) do
      if type(key) == "string" then
        local distance = edit_distance(name:lower(), key:lower())
        if distance < best_distance or (distance == best_distance and best and key < best) then
          best, best_distance = key, distance
        end
      end
    end
  end
  return best
end

-- Makes reading a missing member of `t` an error at the reader's line that
-- names the closest member: `wb.treshold` says "did you mean wb.threshold?".
function problems.strict(t, prefix, help)
  return setmetatable(t, {
    __index = function(self, key)
      local message = prefix .. tostring(key) .. " does not exist"
      local near = type(key) == "string" and problems.closest(key, { self }) or nil
      if near then message = message .. ": did you mean " .. prefix .. near .. "?" end
      error(message .. " (" .. help .. ")", 2)
    end,
  })
end

-- Raises every collected problem as one error, one per line. The lines
-- carry their own positions, so the error adds none.
function problems.raise()
  if #problems.list == 0 then return end
  local text = table.concat(problems.list, "\n")
  problems.list = {}
  error(text, 0)
end

return problems
