-- The workbench flow API: what a flow file sees as `require "wb"`.
--
-- Everything here is plain Lua on top of a few host functions
-- (require "wb.native"): read it, copy it, override it. A flow folder that
-- holds its own wb/init.lua or wb/steps.lua is searched first.

local native = require "wb.native"
local problems = require "wb.problems"
local steps = require "wb.steps"

local wb = {}

-- Logging through the host's logger: wb.log("text") logs at info level,
-- wb.log.debug / .info / .warn / .error at their levels.
local function log_at(level)
  return function(...)
    local parts = table.pack(...)
    for i = 1, parts.n do parts[i] = tostring(parts[i]) end
    native.log(level, table.concat(parts, " ", 1, parts.n))
  end
end
wb.log = setmetatable({
  trace = log_at "trace", debug = log_at "debug", info = log_at "info",
  warn = log_at "warning", warning = log_at "warning", error = log_at "error",
}, { __call = function(_, ...) return log_at "info"(...) end })

-- The localized text of a message key, with {param} substituted.
function wb.text(key, params)
  return native.text(key, params)
end

local function guard(tree, prefix)
  for key, value in pairs(tree) do
    if type(value) == "table" then guard(value, prefix .. key .. ".") end
  end
  return setmetatable(tree, {
    __index = function(_, key)
      error("unknown setting '" .. prefix .. tostring(key) .. "'", 2)
    end,
  })
end

local effective

-- Declares the flow's own settings and sets values of existing ones, in
-- the "flow" layer (--config and --set still override them):
--
--   local S = wb.settings {
--     ["blink.close_below"] = { type = "number", default = 0.2, min = 0, max = 1,
--                               doc = "eye openness that counts as closed" },
--     ["flow.time_limit"] = 20,
--   }
--   print(S.blink.close_below)
--
-- Returns every effective setting as a nested table; reading a key that
-- does not exist is an error.
--
-- `level` says whose settings they are, as for error(): 1 (the default) the
-- file that calls wb.settings, 2 the file that calls that function (a
-- module's builder crediting the variant that calls it).
function wb.settings(spec, level)
  if spec ~= nil and type(spec) ~= "table" then
    error("wb.settings expects a table of declarations and values", 2)
  end
  local declare, values = {}, {}
  for key, value in pairs(spec or {}) do
    if type(key) ~= "string" then
      error("wb.settings: keys must be setting names like \"blink.close_below\"", 2)
    end
    if type(value) == "table" then declare[key] = value else values[key] = value end
  end
  local where = native.where((math.type(level) == "integer" and level >= 1 and level or 1) + 1)
  effective = guard(native.settings({ declare = declare, values = values, where = where }), "")
  return effective
end

-- The effective value of one setting, by its dotted name.
function wb.setting(key)
  if effective == nil then wb.settings() end
  local node = effective
  for part in string.gmatch(key, "[^.]+") do
    node = type(node) == "table" and rawget(node, part) or nil
    if node == nil then error("unknown setting '" .. key .. "'", 2) end
  end
  return node
end

local flow_fields = {
  name = "string", steps = "table", time_limit = "number", step_timeout = "number",
  delay = "number", random = "table", seed = "number", codes = "table",
  messages = "table", on_finish = "function", description = "string", watch = "table", results = "table",
  score = "function",
}

-- Builds a flow. See docs/flow-api.md for every field.
function wb.flow(spec)
  local where = native.where(2)
  if type(spec) ~= "table" then
    problems.add(where .. "wb.flow expects a table")
    problems.raise()
  end
  problems.check_fields("wb.flow", spec, flow_fields, where)
  if type(spec.name) ~= "string" or spec.name == "" then
    problems.add(where .. "wb.flow: a flow needs a name (name = \"...\")")
  end
  local list = {}
  if type(spec.steps) ~= "table" or #spec.steps == 0 then
    problems.add(where .. "wb.flow: a flow needs at least one step (steps = { ... })")
  else
    for index, step in ipairs(spec.steps) do
      list[index] = steps.normalize(step, index, where)
    end
  end

  local values = {}
  if type(spec.time_limit) == "number" then values["flow.time_limit"] = spec.time_limit end
  if type(spec.step_timeout) == "number" then values["flow.step_timeout"] = spec.step_timeout end
  if type(spec.delay) == "number" then values["flow.step_delay"] = spec.delay end
  if type(spec.seed) == "number" then values["flow.seed"] = spec.seed end
  if type(spec.random) == "table" then
    values["flow.order"] = "random"
    local pick = spec.random.pick
    if pick ~= nil then
      if math.type(pick) ~= "integer" or pick < 1 then
        problems.add(where .. "wb.flow: random.pick must be a whole number of steps, at least 1")
      elseif pick > #list then
        problems.add(where .. "wb.flow: random.pick is " .. pick .. " but the flow has only " .. #list .. " steps")
      else
        values["flow.pick"] = pick
      end
    end
  end
  if type(spec.codes) == "table" then
    for reason, code in pairs(spec.codes) do
      if type(reason) ~= "string" or math.type(code) ~= "integer" then
        problems.add(where .. "wb.flow: codes maps reasons to whole numbers, e.g. codes = { time_limit = 4 }")
      elseif code < 0 then
        problems.add(where .. "wb.flow: code " .. code .. " for '" .. reason .. "' is negative; negative codes are the engine's")
      end
    end
  end
  if type(spec.results) == "table" then
    for reason, key in pairs(spec.results) do
      if type(reason) ~= "string" or type(key) ~= "string" then
        problems.add(where .. "wb.flow: results maps reasons to message keys, e.g. results = { passed = \"enroll.passed\" }")
      end
    end
  end
  local watch = {}
  if type(spec.watch) == "table" then
    for index, watcher in ipairs(spec.watch) do
      if type(watcher) ~= "table" or type(watcher.update) ~= "function" then
        problems.add(where .. "wb.flow: watch[" .. index .. "] is not a watcher; build it with wb.alert or wb.guard")
      else
        watch[#watch + 1] = watcher
      end
    end
  end
  problems.raise()
  if next(values) ~= nil then native.settings({ declare = {}, values = values }) end

  return {
    kind = "wb.flow",
    name = spec.name,
    description = spec.description,
    steps = list,
    codes = spec.codes or {},
    results = spec.results or {},
    messages = spec.messages or {},
    on_finish = spec.on_finish,
    score = spec.score,
    score_where = where,
    watch = watch,
  }
end

-- The step vocabulary (see wb/steps.lua).
wb.step = steps.step
wb.threshold = steps.threshold
wb.range = steps.range
wb.sequence = steps.sequence
-- wb.field("face.yaw") is a getter, noted like a step's needs for `workbench check`.
function wb.field(path)
  -- A getter made on every frame walks no stack once the flow is prepared.
  if not problems.prepared then problems.read(path, nil, native.where(2)) end
  return steps.field(path)
end
wb.alert = steps.alert
wb.guard = steps.guard

-- Face interactions and best shot (see wb/face.lua).
local face = require "wb.face"
wb.blink = face.blink
wb.head_turn = face.head_turn
wb.head_pitch = face.head_pitch
wb.best_shot = face.best_shot
wb.passive_liveness = face.passive_liveness

-- Who it is: describing faces, enrolling them, verifying and identifying (see wb/identity.lua).
local identity = require "wb.identity"
wb.describe_face = identity.describe_face
wb.enroll = identity.enroll
wb.add_faces = identity.add_faces
wb.verify = identity.verify
wb.identify = identity.identify
wb.compare_faces = identity.compare_faces

-- A misspelled member (wb.treshold) is an error where it is written, not
-- "attempt to call a nil value" later.
return problems.strict(wb, "wb.", "docs/flow-api.md lists the flow API")
