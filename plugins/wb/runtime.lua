-- The glue the host calls once per run: it turns the value a flow file
-- returned into the steps the host drives and the `ctx` every step gets.

local native = require "wb.native"
local steps = require "wb.steps"
local problems = require "wb.problems"

local runtime = {}

local function copy_list(list)
  local out = {}
  for i, v in ipairs(list or {}) do out[i] = v end
  return out
end

local function shallow_equal(a, b)
  if a == b then return true end
  if type(a) ~= "table" or type(b) ~= "table" then return false end
  for k, v in pairs(a) do if b[k] ~= v then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end

-- The context passed to every step. Functions work with both ctx.f(...)
-- and ctx:f(...).
local function make_context()
  local ctx = { started_at = 0, elapsed = 0 }
  local last_hint, last_params

  local function strip(self, ...)
    if self == ctx then return ... end
    return self, ...
  end

  -- Shows a hint; the same key with the same params is shown once.
  function ctx.hint(...)
    local key, params = strip(...)
    if key == last_hint and shallow_equal(params, last_params) then return end
    last_hint, last_params = key, params
    native.hint(key, params)
  end

  -- Forgets the hint on screen, so that the next ctx.hint shows again.
  function ctx.clear_hint()
    last_hint, last_params = nil, nil
  end

  -- Emits a status event: ctx.status("ORTH") or ctx.status("FAR", { ratio = 0.1 }).
  function ctx.status(...)
    local name, fields = strip(...)
    native.status(name, fields)
  end

  -- Emits an event of the flow's own type (written as "flow.<type>").
  function ctx.event(...)
    local kind, fields = strip(...)
    native.event(kind, fields)
  end

  function ctx.text(...)
    local key, params = strip(...)
    return native.text(key, params)
  end

  ctx.log = require("wb").log
  return ctx
end

-- prepare(flow) -> description, steps, ctx
function runtime.prepare(flow)
  if type(flow) ~= "table" then
    error("the flow file must return a flow (return wb.flow { ... }), not a " .. type(flow), 0)
  end
  if flow.kind ~= "wb.flow" then
    -- A plain table with the same fields is accepted as a flow spec.
    flow = require("wb").flow(flow)
  end
  local ctx = make_context()
  local description = {
    name = flow.name,
    description = flow.description,
    steps = {},
    codes = flow.codes or {},
    messages = copy_list(flow.messages),
    has_on_finish = type(flow.on_finish) == "function",
  }
  for index, step in ipairs(flow.steps) do
    local user_start = step.start
    -- Showing the step's hint when it starts is the runtime's job.
    -- The step's own hint first: what its start shows (a sequence's first
    -- sub-step) is more specific and comes after.
    step.start = function(self, context)
      context.clear_hint()
      if self.hint then context.hint(self.hint, self.hint_params) end
      if user_start then user_start(self, context) end
    end
    description.steps[index] = {
      name = step.name,
      timeout = step.timeout,
      hint = step.hint,
      hints = copy_list(step.hints),
      needs = copy_list(step.needs),
      fail_code = step.fail_code,
    }
  end
  problems.raise(0)
  return description, flow.steps, ctx
end

return runtime
