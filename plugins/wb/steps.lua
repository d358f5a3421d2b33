-- The generic step vocabulary: threshold, range, sequence, and steps
-- written as plain functions. Every step is a table with
--
--   name     shown in events
--   timeout  seconds (optional; default: the setting flow.step_timeout)
--   hint     message key shown when the step starts (optional)
--   needs    measurement fields the step reads, e.g. { "face.yaw" }
--   hints    every message key the step may show (for `workbench check`)
--   start(self, ctx)          called when the step starts (optional)
--   update(self, m, ctx)      called for every frame; returns
--                              true               the step passed
--                              false, reason[, code]  it failed
--                              nil                keep going
--
-- `m` is the frame's measurements (m.t in seconds, m.frame, m.face.yaw,
-- ...). The host refills the same table every frame: copy what you keep.

local native = require "wb.native"
local problems = require "wb.problems"

local steps = {}

-- A getter for a dotted field name: field("face.yaw")(m) == m.face.yaw, or
-- nil when any part is missing.
function steps.field(path)
  local parts = {}
  for part in string.gmatch(path, "[^.]+") do
    parts[#parts + 1] = tonumber(part) and math.tointeger(tonumber(part)) or part
  end
  local a, b, c = parts[1], parts[2], parts[3]
  if #parts == 1 then
    return function(m) return m[a] end
  elseif #parts == 2 then
    return function(m)
      local t = m[a]
      if t ~= nil then return t[b] end
    end
  elseif #parts == 3 then
    return function(m)
      local t = m[a]
      if t == nil then return nil end
      t = t[b]
      if t ~= nil then return t[c] end
    end
  end
  return function(m)
    local t = m
    for i = 1, #parts do
      if type(t) ~= "table" then return nil end
      t = t[parts[i]]
    end
    return t
  end
end

-- A measurement a number test reads that holds something else (a boolean
-- set by a QA scenario, a plugin's string) is the flow's mistake, reported
-- at the flow's line with the field's name and what it held.
local function not_a_number(where, kind, spec, value)
  local what = spec.field and ("'" .. spec.field .. "'") or "the value function's result"
  error(where .. kind .. ": " .. what .. " is a " .. type(value) .. " (" .. tostring(value)
    .. ") in this frame, not a number", 0)
end

local common_fields = {
  name = "string", timeout = "number", hint = "string", hint_params = "table",
  needs = "table", hints = "table", start = "function", update = "function",
  fail_code = "number", within_ms = "number", passed = "function",
}

-- Checks a step spec against the fields it may have, collecting problems.
local function check_fields(kind, spec, fields, where)
  problems.check_step_fields(kind, spec, fields, common_fields, where)
  if spec.timeout ~= nil and type(spec.timeout) == "number" and spec.timeout <= 0 then
    problems.add(where .. kind .. ": timeout must be more than 0 seconds")
  end
  -- Where the step was written, for what `workbench check` says of it.
  if spec.where == nil then spec.where = where end
end

local function collect_hints(spec)
  local hints = {}
  if spec.hint then hints[#hints + 1] = spec.hint end
  for _, key in ipairs(spec.hints or {}) do hints[#hints + 1] = key end
  return hints
end

-- A step from a table with update = function(self, m, ctx) (and
-- optionally start), or from a plain function of (m, ctx), named or not:
--   wb.step { name = "one face", update = function(self, m, ctx) ... end }
--   wb.step("one face", function(m, ctx) ... end)
function steps.step(spec, fn)
  local where = native.where(2)
  if type(spec) == "string" and type(fn) == "function" then
    return { name = spec, needs = {}, hints = {}, where = where, update = function(_, m, ctx) return fn(m, ctx) end }
  end
  if type(spec) == "function" then
    local plain = spec
    return { needs = {}, hints = {}, where = where, update = function(_, m, ctx) return plain(m, ctx) end }
  end
  if type(spec) ~= "table" then
    problems.add(where .. "wb.step expects a table, a function, or a name and a function")
    return { name = "invalid", needs = {}, hints = {}, update = function() end }
  end
  check_fields("wb.step", spec, {}, where)
  problems.read_needs(spec.needs, where)
  if type(spec.update) ~= "function" then
    problems.add(where .. "wb.step: a step needs update = function(self, m, ctx) ... end")
    spec.update = function() end
  end
  spec.hints = collect_hints(spec)
  return spec
end

-- threshold: passes when a measurement crosses a value: `above = v`
-- (from <= v to > v) or `below = v` (from >= v to < v). It must first be
-- seen on the near side, so a value that is already beyond when the step
-- starts does not count; `crossing = false` passes on any frame beyond.
-- The measurement is a field, or a function of the frame (then list the
-- fields it reads in `needs`).
--   wb.threshold { name = "turn left", field = "face.yaw", above = 20 }
--   wb.threshold { value = function(m) return m.face.ear_left + m.face.ear_right end,
--                  needs = { "face.ear_left", "face.ear_right" }, below = 0.4 }
function steps.threshold(spec)
  local where = native.where(2)
  check_fields("wb.threshold", spec,
    { field = "string", value = "function", above = "number", below = "number", crossing = "boolean" }, where)
  problems.read(spec.field, "number", where)
  problems.read_needs(spec.needs, where)
  if (type(spec.field) == "string") == (type(spec.value) == "function") then
    problems.add(where .. "wb.threshold: give field = \"group.name\" or value = function(m) ... end")
  end
  if (spec.above == nil) == (spec.below == nil) then
    problems.add(where .. "wb.threshold: give exactly one of above = value or below = value")
  end
  local get = spec.value or steps.field(spec.field or "")
  local limit = spec.above or spec.below or 0
  local sign = spec.above ~= nil and 1 or -1
  local must_cross = spec.crossing ~= false
  local step = {
    name = spec.name or ("threshold " .. tostring(spec.field or "value")),
    timeout = spec.timeout, hint = spec.hint, hint_params = spec.hint_params,
    needs = spec.needs or { spec.field }, hints = collect_hints(spec), fail_code = spec.fail_code,
    within_ms = spec.within_ms, field = spec.field, above = spec.above, below = spec.below, where = where,
  }
  local armed = not must_cross
  local user_start = spec.start
  step.passed = spec.passed
  function step.start(self, ctx)
    armed = not must_cross
    if user_start then user_start(self, ctx) end
  end
  function step.update(_, m)
    local value = get(m)
    if value == nil then return nil end
    if type(value) ~= "number" then not_a_number(where, "wb.threshold", spec, value) end
    if sign * (value - limit) > 0 then
      if armed then return true end
    else
      armed = true
    end
  end
  return step
end

-- range: passes once a measurement (a field or a value function, as for
-- threshold) has stayed inside [min, max] for at least hold_ms
-- milliseconds without leaving it (a missing value counts as leaving).
--   wb.range { name = "face front-on", field = "face.yaw", min = -5, max = 5, hold_ms = 500 }
function steps.range(spec)
  local where = native.where(2)
  check_fields("wb.range", spec, { field = "string", value = "function", min = "number", max = "number", hold_ms = "number" }, where)
  problems.read(spec.field, "number", where)
  problems.read_needs(spec.needs, where)
  if (type(spec.field) == "string") == (type(spec.value) == "function") then
    problems.add(where .. "wb.range: give field = \"group.name\" or value = function(m) ... end")
  end
  if spec.min == nil and spec.max == nil then problems.add(where .. "wb.range: give min, max or both") end
  if spec.min and spec.max and spec.min > spec.max then
    problems.add(where .. "wb.range: min (" .. spec.min .. ") is above max (" .. spec.max .. ")")
  end
  local get = spec.value or steps.field(spec.field or "")
  local min, max = spec.min or -math.huge, spec.max or math.huge
  local hold = (spec.hold_ms or 0) / 1000
  local step = {
    name = spec.name or ("range " .. tostring(spec.field or "value")),
    timeout = spec.timeout, hint = spec.hint, hint_params = spec.hint_params,
    needs = spec.needs or { spec.field }, hints = collect_hints(spec), fail_code = spec.fail_code,
    within_ms = spec.within_ms, field = spec.field, min = spec.min, max = spec.max, hold_ms = spec.hold_ms,
    where = where,
  }
  local entered_at
  local user_start = spec.start
  step.passed = spec.passed
  function step.start(self, ctx)
    entered_at = nil
    if user_start then user_start(self, ctx) end
  end
  function step.update(_, m)
    local value = get(m)
    if value ~= nil and type(value) ~= "number" then not_a_number(where, "wb.range", spec, value) end
    if value == nil or value < min or value > max then
      entered_at = nil
      return nil
    end
    if entered_at == nil then entered_at = m.t end
    if m.t - entered_at >= hold then return true end
  end
  return step
end

-- sequence: sub-steps in order. Each sub-step after the first may have
-- within_ms: the time it has after the previous one passed; when that runs
-- out the sequence starts again from the first sub-step (a reset, not a
-- failure). A blink:
--   wb.sequence { name = "blink",
--     wb.threshold { field = "face.ear_left", below = 0.2 },
--     wb.threshold { field = "face.ear_left", above = 0.3, within_ms = 400 },
--   }
-- A sub-step is any step; give it a reset timeout with within_ms in its
-- own spec, or wrap it as { within_ms = N, step }.
function steps.sequence(spec)
  local where = native.where(2)
  check_fields("wb.sequence", spec, {}, where)
  local parts, needs, hints = {}, {}, collect_hints(spec)
  for index, item in ipairs(spec) do
    local within = nil
    local sub = item
    if type(item) == "table" and item.update == nil and item[1] ~= nil then
      within = item.within_ms
      sub = item[1]
    elseif type(item) == "table" then
      within = item.within_ms
    end
    sub = steps.normalize(sub, index, where)
    for _, field in ipairs(sub.needs or {}) do needs[#needs + 1] = field end
    for _, key in ipairs(sub.hints or {}) do hints[#hints + 1] = key end
    parts[index] = { step = sub, within = within and within / 1000 or nil }
  end
  if #parts == 0 then problems.add(where .. "wb.sequence: a sequence needs at least one sub-step") end

  local step = {
    name = spec.name or "sequence", timeout = spec.timeout, hint = spec.hint,
    hint_params = spec.hint_params, needs = needs, hints = hints, fail_code = spec.fail_code,
    parts = parts, resets = 0, where = where,
  }
  local current, previous_passed_at

  local function start_part(index, ctx)
    local part = parts[index]
    if part == nil then return end
    if part.step.start then part.step.start(part.step, ctx) end
    if part.step.hint then ctx.hint(part.step.hint, part.step.hint_params) end
  end

  local function restart(self, ctx)
    current, previous_passed_at = 1, nil
    start_part(1, ctx)
  end

  local user_start = spec.start
  step.passed = spec.passed
  function step.start(self, ctx)
    self.resets = 0
    if user_start then user_start(self, ctx) end
    restart(self, ctx)
  end

  -- The sub-step that takes over sees the frame on which the previous one
  -- passed: a crossing threshold needs it to know where the value started
  -- (a blink that closes the eyes for a single frame).
  function step.update(self, m, ctx)
    while true do
      local part = parts[current]
      if part == nil then return true end
      if part.within and previous_passed_at and m.t - previous_passed_at > part.within then
        self.resets = self.resets + 1
        restart(self, ctx)
        part = parts[current]
      end
      local ok, reason, code = part.step.update(part.step, m, ctx)
      if ok == false then return false, reason, code end
      if not ok then return nil end
      previous_passed_at = m.t
      current = current + 1
      if parts[current] == nil then return true end
      start_part(current, ctx)
    end
  end
  -- The run ended within the sequence: the sub-step that was running is stopped.
  function step.stop(self, ctx, reason)
    local part = parts[current]
    if part and type(part.step.stop) == "function" then part.step.stop(part.step, ctx, reason) end
  end
  return step
end

-- A condition of the frame for watchers: `when = function(m, ctx)`
-- returning true while it holds, or `field` with `above` / `below`
-- (a missing value does not hold).
local function condition(kind, spec, where)
  if spec.when ~= nil and spec.field ~= nil then
    problems.add(where .. kind .. ": give when = function(m, ctx) ... end or field = \"group.name\", not both")
  end
  if spec.when ~= nil then return spec.when, spec.needs or {} end
  if type(spec.field) ~= "string" then
    problems.add(where .. kind .. ": give when = function(m, ctx) ... end or field = \"group.name\" with above or below")
    return function() return false end, {}
  end
  if (spec.above == nil) == (spec.below == nil) then
    problems.add(where .. kind .. ": with field, give exactly one of above = value or below = value")
  end
  local get = steps.field(spec.field)
  local above, below = spec.above, spec.below
  return function(m)
    local value = get(m)
    if value == nil then return false end
    if type(value) ~= "number" then not_a_number(where, kind, spec, value) end
    if above ~= nil then return value > above end
    return value < below
  end, spec.needs or { spec.field }
end

-- What wb.alert and wb.guard share: their fields checked (`own` besides
-- the condition's), the condition, and how long (seconds) it must hold.
local function watched_condition(kind, spec, where, own)
  local fields = { when = "function", field = "string", above = "number", below = "number", for_ms = "number" }
  for key, expected in pairs(own) do fields[key] = expected end
  check_fields(kind, spec, fields, where)
  problems.read(spec.field, "number", where)
  problems.read_needs(spec.needs, where)
  local holds, needs = condition(kind, spec, where)
  return holds, needs, (spec.for_ms or 0) / 1000
end

-- Takes down what a watcher raised, if it did.
local function lower(watcher, ctx)
  if watcher.active then
    watcher.active = false
    ctx.clear_alert(watcher)
  end
end

-- alert: a condition that may come and go while the steps run; the flow
-- goes on. When it has held for `for_ms` (default 0) the alert is raised:
-- status `status` and hint `hint`. When it no longer holds, status
-- `clear_status` (default "VALID") and the hint that was on screen before
-- the first alert come back. Listed in the flow's `watch`.
--   wb.alert { status = "FAR", field = "card.size_ratio", below = 0.3,
--              hint = "idcard_operation_title13" }
function steps.alert(spec)
  local where = native.where(2)
  local holds, needs, hold = watched_condition("wb.alert", spec, where, { status = "string", clear_status = "string" })
  if type(spec.status) ~= "string" then problems.add(where .. "wb.alert: an alert needs status = \"NAME\"") end
  local watcher = {
    field = spec.field, above = spec.above, below = spec.below,
    kind = "alert", name = spec.name or spec.status or "alert", status = spec.status,
    clear_status = spec.clear_status or "VALID", hint = spec.hint, hint_params = spec.hint_params,
    needs = needs, hints = collect_hints(spec), active = false,
  }
  local since
  function watcher.update(self, m, ctx)
    if holds(m, ctx) then
      since = since or m.t
      if not self.active and m.t - since >= hold then
        self.active = true
        ctx.raise_alert(self)
      end
    else
      since = nil
      lower(self, ctx)
    end
  end
  return watcher
end

-- guard: a condition that ends the flow when it has held for `for_ms`
-- (default 0): the running step fails with `reason` and `code`. While it
-- holds, before that, `hint` is shown. Listed in the flow's `watch`.
--   wb.guard { reason = "lost", code = 3, for_ms = 1500,
--              when = function(m) return not (m.card and m.card.found) end }
function steps.guard(spec)
  local where = native.where(2)
  local holds, needs, hold = watched_condition("wb.guard", spec, where, { reason = "string", code = "number" })
  if type(spec.reason) ~= "string" then problems.add(where .. "wb.guard: a guard needs reason = \"slug\"") end
  if spec.code ~= nil and (math.type(spec.code) ~= "integer" or spec.code < 0) then
    problems.add(where .. "wb.guard: code must be a whole number of at least 0")
  end
  local watcher = {
    field = spec.field, above = spec.above, below = spec.below,
    kind = "guard", name = spec.name or spec.reason or "guard", reason = spec.reason, code = spec.code,
    hint = spec.hint, hint_params = spec.hint_params, needs = needs, hints = collect_hints(spec), active = false,
  }
  local since
  function watcher.update(self, m, ctx)
    if holds(m, ctx) then
      if since == nil then
        since = m.t
        if self.hint then
          self.active = true
          ctx.raise_alert(self)
        end
      end
      if m.t - since >= hold then return false, self.reason, self.code end
    else
      since = nil
      lower(self, ctx)
    end
  end
  return watcher
end

-- Turns anything a flow lists as a step into a step table.
function steps.normalize(item, index, where)
  if type(item) == "function" then
    local fn = item
    return {
      name = "step " .. index, needs = {}, hints = {},
      update = function(_, m, ctx) return fn(m, ctx) end,
    }
  end
  if type(item) ~= "table" then
    problems.add(where .. "step " .. index .. " is a " .. type(item) .. "; a step is a table or a function")
    return { name = "step " .. index, update = function() end, needs = {}, hints = {} }
  end
  if type(item.update) ~= "function" then
    problems.add(where .. "step " .. index .. " has no update function (build it with wb.step, wb.threshold, ...)")
    item.update = function() end
  end
  item.name = item.name or ("step " .. index)
  -- A plain table is a step as written in the flow; one from wb.* noted its reads.
  if item.where == nil then problems.read_needs(item.needs, where) end
  item.needs = item.needs or {}
  item.hints = item.hints or collect_hints(item)
  return item
end

return steps
