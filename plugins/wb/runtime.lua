-- The glue the host calls once per run: it turns the value a flow file
-- returned into the steps the host drives and the `ctx` every step gets.

local native = require "wb.native"
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
  local ctx = { started_at = 0, elapsed = 0, flow_started_at = 0 }
  local last_hint, last_params
  -- The hint under the alerts: shown again when the last alert clears.
  local base_hint, base_params
  local raised = {}

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

  -- A watcher's condition started: its status and hint (wb.alert, wb.guard).
  function ctx.raise_alert(...)
    local watcher = strip(...)
    if #raised == 0 then base_hint, base_params = last_hint, last_params end
    raised[#raised + 1] = watcher
    if watcher.status then native.status(watcher.status) end
    if watcher.hint then ctx.hint(watcher.hint, watcher.hint_params) end
  end

  -- A watcher's condition ended: its clear status, and the hint of the
  -- alert still raised before it, or the hint from before the alerts.
  function ctx.clear_alert(...)
    local watcher = strip(...)
    for i = #raised, 1, -1 do
      if raised[i] == watcher then table.remove(raised, i) end
    end
    if watcher.clear_status then native.status(watcher.clear_status) end
    local top = raised[#raised]
    if top and top.hint then
      ctx.hint(top.hint, top.hint_params)
    elseif #raised == 0 and base_hint then
      ctx.hint(base_hint, base_params)
    end
  end

  -- A step shows its own hint: that is the one under the alerts now.
  function ctx.step_hint(key, params)
    base_hint, base_params = key, params
    if #raised == 0 then ctx.hint(key, params) end
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

  -- Keeps the images of this frame under a name (with --artifacts) and
  -- emits a `capture` event; returns { frame = path, ... } or nil.
  function ctx.capture(...)
    local name = strip(...)
    return native.capture(name)
  end

  -- Emits an intermediate result: the flow goes on (an HKID card's first
  -- motion is result 1, "first"). ctx.intermediate("first", 1, { images = ... })
  function ctx.intermediate(...)
    local reason, code, fields = strip(...)
    native.intermediate(reason, code, fields)
  end

  function ctx.text(...)
    local key, params = strip(...)
    return native.text(key, params)
  end

  -- True once for each command whoever drives the run sent since it was
  -- last taken: ctx.command("best_shot") (POST /api/best-shot, LUNA ID's
  -- StartBestShotSearchCommand).
  function ctx.command(...)
    local name = strip(...)
    return native.command(name)
  end

  -- Describes a face of this frame and keeps its descriptor under a name:
  -- source "face" (the live face, the default) or "portrait" (the card's).
  -- Returns { found = true } or { found = false, error = name, message = text }.
  -- The run must have a step that needs "face.descriptor".
  function ctx.describe_face(...)
    local name, source = strip(...)
    return native.describe_face(name, source or "face")
  end

  -- Asks the gallery (the setting gallery.location): "enroll", "add_faces",
  -- "verify", "identify" or "compare", with the described faces by name:
  --   ctx.gallery("verify", { user = "alice", face = "live" })
  -- Returns the answer ({ match = true, distance = 0.31, ... }) or
  -- { error = name, message = text }.
  function ctx.gallery(...)
    local operation, fields = strip(...)
    return native.identity(operation, fields or {})
  end

  ctx.log = require("wb").log
  -- A misspelled member (ctx.hnit) is an error at the step's line. A step
  -- may still keep its own values in ctx: set them before reading them.
  return problems.strict(ctx, "ctx.", "docs/flow-api.md lists what ctx has")
end

-- The number tests a step (or watcher) makes on a named measurement, with
-- those of its sub-steps: the lines a report draws on that measurement.
local function thresholds_of(step, out)
  out = out or {}
  if type(step) ~= "table" then return out end
  if type(step.field) == "string" then
    for _, kind in ipairs { "above", "below", "min", "max" } do
      local value = step[kind]
      if type(value) == "number" and value == value and math.abs(value) ~= math.huge then
        out[#out + 1] = { field = step.field, kind = kind, value = value }
      end
    end
  end
  for _, part in ipairs(step.parts or {}) do thresholds_of(part.step, out) end
  -- A step that tests a field in its own code names the limits it holds it
  -- to: { { field = "face.yaw", above = 30 }, ... } (wb.head_turn does).
  if type(step.limits) == "table" then
    for _, limit in ipairs(step.limits) do thresholds_of(limit, out) end
  end
  return out
end

-- prepare(flow) -> description, driver
function runtime.prepare(flow)
  local returned = flow
  if type(flow) ~= "table" then
    error("the flow file must return a flow (return wb.flow { ... }), not a " .. type(flow), 0)
  end
  if flow.kind ~= "wb.flow" then
    -- A plain table with the same fields is accepted as a flow spec.
    flow = require("wb").flow(flow)
  end
  local ctx = make_context()
  local watch = flow.watch or {}
  local watch_needs, watch_hints = {}, {}
  local watch_reads_unknown = false
  local has_guard = false
  local watch_thresholds = {}
  for _, watcher in ipairs(watch) do
    if watcher.kind == "guard" then has_guard = true end
    for _, line in ipairs(thresholds_of(watcher)) do
      line.watcher = watcher.name
      watch_thresholds[#watch_thresholds + 1] = line
    end
    for _, field in ipairs(watcher.needs or {}) do watch_needs[#watch_needs + 1] = field end
    -- A `when` function without `needs` may read anything.
    if #(watcher.needs or {}) == 0 then watch_reads_unknown = true end
    for _, key in ipairs(watcher.hints or {}) do watch_hints[#watch_hints + 1] = key end
  end
  local description = {
    name = flow.name,
    description = flow.description,
    steps = {},
    codes = flow.codes or {},
    results = flow.results or {},
    messages = copy_list(flow.messages),
    has_on_finish = type(flow.on_finish) == "function",
    has_score = type(flow.score) == "function",
    watch_needs = watch_needs,
    watch_reads_unknown = watch_reads_unknown,
    has_guard = has_guard,
    watch_thresholds = watch_thresholds,
    reads = problems.reads,
  }
  for index, step in ipairs(flow.steps) do
    local user_start, user_update, passed = step.start, step.update, step.passed
    -- Showing the step's hint when it starts is the runtime's job.
    -- The step's own hint first: what its start shows (a sequence's first
    -- sub-step) is more specific and comes after.
    step.start = function(self, context)
      context.clear_hint()
      if self.hint then context.step_hint(self.hint, self.hint_params) end
      if user_start then user_start(self, context) end
    end
    -- The flow's watchers see every frame a step sees, before the step.
    if #watch > 0 or passed then
      step.update = function(self, m, context)
        for _, watcher in ipairs(watch) do
          local ok, reason, code = watcher.update(watcher, m, context)
          if ok == false then return false, reason, code end
        end
        local ok, reason, code = user_update(self, m, context)
        if ok == true and passed then passed(self, m, context) end
        return ok, reason, code
      end
    end
    local needs, hints = copy_list(step.needs), copy_list(step.hints)
    -- A step that does not say what it reads keeps saying nothing (every estimator runs).
    if #needs > 0 then
      for _, field in ipairs(watch_needs) do needs[#needs + 1] = field end
    end
    for _, key in ipairs(watch_hints) do hints[#hints + 1] = key end
    description.steps[index] = {
      name = step.name,
      timeout = step.timeout,
      hint = step.hint,
      hints = hints,
      needs = needs,
      fail_code = step.fail_code,
      where = step.where,
      thresholds = thresholds_of(step),
    }
  end
  problems.raise()
  problems.prepared = true
  return description, runtime.driver(returned, flow.steps, ctx)
end

-- What the host calls while the flow runs. The host keeps the order of
-- the steps, their timeouts and the result; these only reach into Lua.
function runtime.driver(flow, steps, ctx)
  -- state is the context every step gets; the host sets ctx.elapsed in it.
  local driver = { state = ctx }

  -- Step `index` starts at t (ctx.started_at; ctx.flow_started_at is the
  -- host's start of the flow).
  function driver.start(index, t, flow_started_at)
    ctx.started_at, ctx.flow_started_at, ctx.elapsed = t, flow_started_at, 0
    local step = steps[index]
    if type(step.start) == "function" then step.start(step, ctx) end
  end

  -- What the host calls on every frame of step `index`, as
  -- update(step, m, ctx): true passes, false [, reason [, code]] fails,
  -- nil goes on. Asked once per step.
  function driver.bind(index)
    local step = steps[index]
    return step.update, step
  end

  -- The engine ended the running step `index` itself (the input ended, the
  -- session was closed, a time ran out): its stop(step, ctx, reason), if it
  -- has one.
  function driver.stop(arguments)
    local step = steps[arguments.index]
    if step and type(step.stop) == "function" then step.stop(step, ctx, arguments.reason) end
  end

  -- The flow's score(flow, ctx, result) and then its on_finish(flow, ctx,
  -- result), each if it has one; on_finish sees the score as result.score.
  function driver.finish(result)
    if type(flow) ~= "table" then return end
    if type(flow.score) == "function" then
      local value = flow.score(flow, ctx, result)
      if value ~= nil then
        if type(value) ~= "number" or value ~= value or math.abs(value) == math.huge then
          local shown = type(value) == "number" and tostring(value) or ("a " .. type(value))
          error((flow.score_where or "") .. "wb.flow: the function in field 'score' returned " .. shown
            .. "; it must return a finite number (higher: more likely bona fide) or nil (no score)", 0)
        end
        native.score(value)
        result.score = value
      end
    end
    if type(flow.on_finish) == "function" then flow.on_finish(flow, ctx, result) end
  end

  return driver
end

return runtime
