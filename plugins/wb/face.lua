-- Face interactions, as VisionLabs LUNA ID's Dynamic Liveness has them,
-- and best-shot selection: steps over the face estimator's measurements
-- (docs/face.md). `require "wb"` exposes them as wb.blink, wb.head_turn,
-- wb.head_pitch and wb.best_shot.
--
-- Every interaction emits the statuses INTERACTION_STARTED when it starts,
-- INTERACTION_SUCCESS or INTERACTION_FAILED when it ends, then
-- INTERACTION_ENDED, each with { interaction = "<kind>" }. It keeps its own
-- timeout (default 5 s): running out fails it with reason
-- "interaction_timeout" and LUNA ID's code 1007. A face that jumps (the
-- estimator face.motion's face.pose_jump: faster than a head can move, as
-- when one photo is swapped for another) fails it with reason "pose_jump"
-- and code 1018 (docs/liveness.md).

local native = require "wb.native"
local problems = require "wb.problems"

local face = {}

local check = problems.check_fields
local fields = require("wb.face_step_fields").with

-- A list of the non-nil arguments.
local function list(...)
  local out = {}
  for i = 1, select("#", ...) do
    local v = select(i, ...)
    if v ~= nil then out[#out + 1] = v end
  end
  return out
end

-- The effective value of a run setting, by its dotted name (nil when the
-- run does not have it).
local function run_setting(key)
  local node = native.settings({ declare = {}, values = {} })
  for part in string.gmatch(key, "[^.]+") do
    node = type(node) == "table" and rawget(node, part) or nil
  end
  return node
end

-- The hint for a frame without exactly one face, or nil.
local function face_hint(m)
  if m.face == nil or m.face.count == nil or m.face.count == 0 then return "face.not_found" end
  if m.face.count > 1 then return "face.multiple" end
end

-- An interaction step around `detect(state, m, ctx)`, which returns true
-- when the interaction succeeded, or false, reason, code when it failed.
-- `jump_matters(state)` says whether a jump of the face fails it now;
-- `timed_out(state)`, when given, the reason and code of running out of
-- time (else interaction_timeout, 1007).
local function interaction(kind, spec, needs, hints, detect, reset, jump_matters, timed_out)
  local timeout = spec.timeout or 5
  local step = {
    name = spec.name or kind, hint = spec.hint, hint_params = spec.hint_params,
    needs = needs, hints = hints, passed = spec.passed, interaction = kind,
    -- The engine's timeout is a backstop: the interaction times out itself, with its code.
    timeout = timeout + 1,
  }
  local started, state, showing_face_hint
  local user_start = spec.start
  function step.start(self, ctx)
    started, showing_face_hint = nil, false
    state = reset()
    -- LUNA ID's 1006 (NEED_TO_BLINK) is its request for a blink.
    ctx.status("INTERACTION_STARTED", { interaction = kind, code = kind == "blink" and 1006 or nil })
    if user_start then user_start(self, ctx) end
  end
  function step.update(self, m, ctx)
    started = started or m.t
    if m.t - started > timeout then
      local reason, code = "interaction_timeout", 1007
      if timed_out then reason, code = timed_out(state) end
      ctx.status("INTERACTION_FAILED", { interaction = kind, reason = reason })
      ctx.status("INTERACTION_ENDED", { interaction = kind })
      return false, reason, code
    end
    -- Judged before the face count: a swap may pass through a frame of two faces.
    if m.face ~= nil and m.face.pose_jump == true and jump_matters(state) then
      ctx.status("INTERACTION_FAILED", { interaction = kind, reason = "pose_jump" })
      ctx.status("INTERACTION_ENDED", { interaction = kind })
      return false, "pose_jump", 1018
    end
    local missing = face_hint(m)
    if missing then
      ctx.hint(missing)
      showing_face_hint = true
      return nil
    elseif showing_face_hint then
      showing_face_hint = false
      if self.hint then ctx.hint(self.hint, self.hint_params) end
    end
    local done, reason, code = detect(state, m, ctx)
    if done then
      ctx.status("INTERACTION_SUCCESS", { interaction = kind })
      ctx.status("INTERACTION_ENDED", { interaction = kind })
      return true
    elseif reason then
      ctx.status("INTERACTION_FAILED", { interaction = kind, reason = reason })
      ctx.status("INTERACTION_ENDED", { interaction = kind })
      return false, reason, code
    end
  end
  -- The run ended in the middle of the interaction (the input ended, the
  -- session was closed): it failed, as LUNA ID says before its result.
  function step.stop(self, ctx, reason)
    ctx.status("INTERACTION_FAILED", { interaction = kind, reason = reason })
    ctx.status("INTERACTION_ENDED", { interaction = kind })
  end
  return step
end

-- blink: the eyes close and open again, closed between min_ms and max_ms.
-- Openness is the eye aspect ratio (face.ear_left / face.ear_right)
-- measured against the person's own running baseline, so narrow eyes and
-- glasses (a lower open ratio) work: closed below close_ratio × baseline,
-- open again above open_ratio × baseline. States, as statuses:
-- EYES_OPENED (baseline known, eyes open), EYES_CLOSED, EYES_OPENED_AGAIN.
-- one_eye = true accepts either eye closing; otherwise both must.
--   wb.blink { hint = "face.blink", min_ms = 50, max_ms = 600 }
function face.blink(spec)
  spec = spec or {}
  local where = native.where(2)
  check("wb.blink", spec, fields {
    one_eye = "boolean", min_ms = "number", max_ms = "number", close_ratio = "number", open_ratio = "number",
    baseline_frames = "number",
  }, where)
  local min_closed = (spec.min_ms or 40) / 1000
  local max_closed = (spec.max_ms or 700) / 1000
  local close_ratio = spec.close_ratio or 0.65
  local open_ratio = spec.open_ratio or 0.72
  local warmup = spec.baseline_frames or 5
  if close_ratio >= open_ratio then
    problems.add(where .. "wb.blink: close_ratio must be below open_ratio")
  end
  local hints = list(spec.hint, "face.not_found", "face.multiple")
  for _, key in ipairs(spec.hints or {}) do hints[#hints + 1] = key end

  local function reset()
    return { phase = "baseline", seen = 0, base = { 0, 0 }, closed_at = nil }
  end

  local function detect(state, m, ctx)
    local ears = { m.face.ear_left, m.face.ear_right }
    if ears[1] == nil or ears[2] == nil then return false end
    if state.phase == "baseline" then
      -- The baseline starts at the most open of the first frames.
      for i = 1, 2 do state.base[i] = math.max(state.base[i], ears[i]) end
      state.seen = state.seen + 1
      if state.seen >= warmup then
        state.phase = "open"
        ctx.status("EYES_OPENED")
      end
      return false
    end
    local closed_count, open_count = 0, 0
    for i = 1, 2 do
      if ears[i] < close_ratio * state.base[i] then closed_count = closed_count + 1 end
      if ears[i] > open_ratio * state.base[i] then open_count = open_count + 1 end
    end
    local closed = spec.one_eye and closed_count >= 1 or closed_count == 2
    local reopened = open_count == 2
    if state.phase == "open" then
      if closed then
        state.phase, state.closed_at = "closed", m.t
        ctx.status("EYES_CLOSED")
      elseif reopened then
        -- Follow the open eyes slowly: light and distance change the ratio.
        for i = 1, 2 do state.base[i] = state.base[i] + 0.05 * (ears[i] - state.base[i]) end
      end
    elseif state.phase == "closed" and reopened then
      local duration = m.t - state.closed_at
      if duration >= min_closed and duration <= max_closed then
        ctx.status("EYES_OPENED_AGAIN", { closed_ms = math.floor(duration * 1000 + 0.5) })
        return true
      end
      -- Too short to be a blink, or eyes held shut: not a blink; start over.
      state.phase = "open"
      ctx.status("EYES_OPENED", { rejected_closed_ms = math.floor(duration * 1000 + 0.5) })
    end
    return false
  end

  -- A real blink keeps the head where it was; a face that jumps while the
  -- eyes are shut is a photo with closed eyes swapped in.
  local function jump_matters(state) return state.phase == "closed" end
  return interaction("blink", spec, { "face.count", "face.ear_left", "face.ear_right", "face.pose_jump" }, hints,
    detect, reset, jump_matters)
end

-- A head movement about one axis: it must start near front-on (within
-- start_angle) and reach end_angle in the asked direction.
local function head_move(kind, field, sign, spec, default_start, default_end, where)
  local start_angle = spec.start_angle or default_start
  local end_angle = spec.end_angle or default_end
  if start_angle >= end_angle then
    problems.add(where .. "wb." .. kind .. ": start_angle must be below end_angle")
  end
  local hints = list(spec.hint, "face.not_found", "face.multiple", "face.look_straight")
  for _, key in ipairs(spec.hints or {}) do hints[#hints + 1] = key end
  -- parallax = true (the setting parallax.threshold) or a number: the turn
  -- must also show that much face.parallax, which a flat picture does not.
  local min_parallax = spec.parallax
  if min_parallax == true then
    min_parallax = run_setting("parallax.threshold")
    -- Never silently off: a run without the setting cannot check what the flow asks.
    if type(min_parallax) ~= "number" then
      problems.add(where .. "wb." .. kind .. ": parallax = true reads the setting parallax.threshold, which this run does not have")
    end
  elseif min_parallax == false then
    min_parallax = nil
  elseif min_parallax ~= nil and (type(min_parallax) ~= "number" or min_parallax < 0) then
    problems.add(where .. "wb." .. kind .. ": parallax must be true, false or a number of at least 0")
    min_parallax = nil
  end
  local function reset() return { armed = false, parallax = 0, reached = false } end
  local function detect(state, m, ctx)
    local angle = m.face[field]
    if angle == nil then return false end
    if state.armed and m.face.parallax ~= nil then state.parallax = math.max(state.parallax, m.face.parallax) end
    if not state.armed then
      if math.abs(angle) <= start_angle then
        state.armed = true
      else
        ctx.hint("face.look_straight")
        state.asked_straight = true
      end
      return false
    end
    if state.asked_straight then
      state.asked_straight = false
      ctx.clear_hint()
      if spec.hint then ctx.hint(spec.hint, spec.hint_params) end
    end
    if sign * angle < end_angle then return false end
    -- Past the angle without the parallax yet: a real head may still show
    -- it as it turns on; running out of time then is no_parallax.
    if min_parallax and state.parallax < min_parallax then
      state.reached = true
      return false
    end
    return true
  end
  local function timed_out(state)
    if state.reached then return "no_parallax", 1019 end
    return "interaction_timeout", 1007
  end
  local needs = { "face.count", "face." .. field, "face.pose_jump" }
  if min_parallax then needs[#needs + 1] = "face.parallax" end
  local function jump_matters() return true end
  local step = interaction(kind, spec, needs, hints, detect, reset, jump_matters, min_parallax and timed_out)
  -- For the report and the preview: front-on first, then past end_angle.
  local limits = { { field = "face." .. field, min = -start_angle, max = start_angle } }
  if sign > 0 then
    limits[2] = { field = "face." .. field, above = end_angle }
  else
    limits[2] = { field = "face." .. field, below = -end_angle }
  end
  step.limits = limits
  return step
end

-- The builder of a head_turn or head_pitch step: a turn about `field`
-- toward `positive` (the field grows) or `negative`, with LUNA ID's default
-- angles.
local function head_move_builder(name, field, positive, negative, start_angle, end_angle)
  return function(spec)
    local where = native.where(2)
    check("wb." .. name, spec, fields {
      direction = "string", start_angle = "number", end_angle = "number", parallax = "any",
    }, where)
    if spec.direction ~= positive and spec.direction ~= negative then
      problems.add(where .. "wb." .. name .. ": direction must be \"" .. positive .. "\" or \"" .. negative .. "\"")
    end
    return head_move(name, field, spec.direction == negative and -1 or 1, spec, start_angle, end_angle, where)
  end
end

-- head_turn: yaw to the person's "left" or "right" (face.yaw is positive
-- when the person turns to their own left). LUNA ID's defaults: from within
-- 10° of front-on to 30°.
--   wb.head_turn { direction = "left", hint = "face.turn_left" }
face.head_turn = head_move_builder("head_turn", "yaw", "left", "right", 10, 30)

-- head_pitch: look "up" or "down" (face.pitch is positive looking up).
-- LUNA ID's defaults: from within 5° to 20°.
--   wb.head_pitch { direction = "up", hint = "face.look_up" }
face.head_pitch = head_move_builder("head_pitch", "pitch", "up", "down", 5, 20)

-- passive_liveness: the face's live probability (face.liveness, from a
-- presentation-attack model the user brings: docs/liveness.md), averaged
-- over `frames` frames with one face and an estimate, against `threshold`
-- (0.5, LUNA ID's for mobile images). Passes at or above it; below, fails
-- with liveness_failed (LUNA ID's 1004). No estimate before the step's
-- `timeout` (default 5 s), or a liveness service that failed (face.liveness_error),
-- fails with liveness_unavailable (1020). Emits
-- LIVENESS_ESTIMATED { liveness, threshold, frames } with what it judged.
--   wb.passive_liveness { threshold = 0.5, frames = 1 }
function face.passive_liveness(spec)
  spec = spec or {}
  local where = native.where(2)
  check("wb.passive_liveness", spec, fields { threshold = "number", frames = "number" }, where)
  local threshold = spec.threshold or 0.5
  local wanted = spec.frames or 1
  if wanted < 1 or wanted ~= math.floor(wanted) then
    problems.add(where .. "wb.passive_liveness: frames must be a whole number of at least 1")
  end
  local timeout = spec.timeout or 5
  local hints = list(spec.hint, "face.not_found", "face.multiple")
  for _, key in ipairs(spec.hints or {}) do hints[#hints + 1] = key end
  local step = {
    name = spec.name or "passive liveness", hint = spec.hint, hint_params = spec.hint_params, passed = spec.passed,
    needs = { "face.count", "face.liveness" }, hints = hints, timeout = timeout + 1,
    limits = { { field = "face.liveness", above = threshold } },
  }
  local started, sum, seen
  local user_start = spec.start
  function step.start(self, ctx)
    started, sum, seen = nil, 0, 0
    if user_start then user_start(self, ctx) end
  end
  function step.update(self, m, ctx)
    started = started or m.t
    local missing = face_hint(m)
    if m.face.liveness_error ~= nil then
      ctx.log("passive liveness: " .. m.face.liveness_error)
      return false, "liveness_unavailable", 1020
    elseif missing then
      ctx.hint(missing)
    elseif m.face.liveness ~= nil then
      sum, seen = sum + m.face.liveness, seen + 1
      if seen >= wanted then
        local live = sum / seen
        ctx.status("LIVENESS_ESTIMATED",
          { liveness = math.floor(live * 1000 + 0.5) / 1000, threshold = threshold, frames = seen })
        if live >= threshold then return true end
        return false, "liveness_failed", 1004
      end
    end
    if m.t - started > timeout then return false, "liveness_unavailable", 1020 end
  end
  return step
end

-- Best shot: LUNA ID's checks on every frame, with its codes (docs/face.md
-- maps each of 1000-1017). Closed eyes are LUNA ID's BadEyesStatus, which
-- has no code of its own: 1001, bad quality (1006 is LUNA ID's request for
-- a blink, which wb.blink makes). Liveness, a mask and occlusion are
-- checked when an estimator plugin provides face.liveness, face.mask or
-- face.occlusion.
face.rejections = {
  { code = 1005, reason = "no_face", hint = "face.not_found" },
  { code = 1003, reason = "multiple_faces", hint = "face.multiple" },
  { code = 1016, reason = "too_far", hint = "face.too_far" },
  { code = 1017, reason = "overlaps_border", hint = "face.border" },
  { code = 1002, reason = "head_turned", hint = "face.look_straight" },
  { code = 1001, reason = "eyes_closed", hint = "face.open_eyes" },
  { code = 1008, reason = "medical_mask", hint = "face.remove_mask" },
  { code = 1009, reason = "mask_misplaced", hint = "face.remove_mask" },
  { code = 1010, reason = "occluded", hint = "face.uncover" },
  { code = 1004, reason = "liveness_failed", hint = "face.not_live" },
  { code = 1011, reason = "blurred", hint = "quality.blurry" },
  { code = 1012, reason = "too_dark", hint = "quality.too_dark" },
  { code = 1013, reason = "too_light", hint = "quality.too_bright" },
  { code = 1014, reason = "uneven_light", hint = "quality.uneven_light" },
  { code = 1015, reason = "specular", hint = "quality.glare" },
  { code = 1001, reason = "bad_quality", hint = "quality.hold_still" },
}
local by_reason = {}
for _, rejection in ipairs(face.rejections) do by_reason[rejection.reason] = rejection end

-- The reasons (in the order of face.rejections) a frame is not a best shot.
-- `o` holds the thresholds (see best_shot).
function face.rejected(m, o)
  local out = {}
  local f = m.face
  if f == nil or f.count == nil or f.count == 0 then return { "no_face" } end
  if f.count > 1 and not o.accept_multiple then out[#out + 1] = "multiple_faces" end
  local box = f.box
  if box == nil or box.w == nil or math.min(box.w, box.h) < o.min_face_px then out[#out + 1] = "too_far" end
  local width, height = m.image and m.image.width, m.image and m.image.height
  if box and box.x and width and height then
    local b = o.border
    if box.x < b.left or box.y < b.top or width - (box.x + box.w) < b.right or height - (box.y + box.h) < b.bottom then
      out[#out + 1] = "overlaps_border"
    end
  end
  if f.yaw == nil or math.abs(f.yaw) > o.max_yaw or math.abs(f.pitch or 0) > o.max_pitch
    or math.abs(f.roll or 0) > o.max_roll then
    out[#out + 1] = "head_turned"
  end
  if not o.accept_eyes_closed and ((f.blink_left or 0) > o.eyes_closed_above or (f.blink_right or 0) > o.eyes_closed_above) then
    out[#out + 1] = "eyes_closed"
  end
  if f.mask == "medical" and not o.accept_mask then out[#out + 1] = "medical_mask" end
  if f.mask == "misplaced" and not o.accept_mask then out[#out + 1] = "mask_misplaced" end
  if not o.accept_occluded and (f.occlusion == true or (type(f.occlusion) == "number" and f.occlusion > o.max_occlusion)) then
    out[#out + 1] = "occluded"
  end
  if type(f.liveness) == "number" and f.liveness < o.min_liveness then out[#out + 1] = "liveness_failed" end
  local q = f.quality or {}
  local failing = 0
  for _, score in ipairs {
    { "blur", "blurred" }, { "darkness", "too_dark" }, { "lightness", "too_light" },
    { "illumination", "uneven_light" }, { "specularity", "specular" },
  } do
    local value = q[score[1]]
    if value ~= nil and value < o.quality[score[1]] then
      out[#out + 1] = score[2]
      failing = failing + 1
    end
  end
  local score = face.quality_score(m)
  if failing == 0 and score ~= nil and score < o.min_quality then out[#out + 1] = "bad_quality" end
  return out
end

-- One number for comparing good frames: the mean of the face's quality
-- scores (nil without them).
function face.quality_score(m)
  local q = m.face and m.face.quality
  if q == nil then return nil end
  local sum, n = 0, 0
  for _, key in ipairs { "blur", "darkness", "lightness", "illumination", "specularity" } do
    if q[key] ~= nil then sum, n = sum + q[key], n + 1 end
  end
  if n == 0 then return nil end
  return sum / n
end

-- best_shot: waits (after start_delay seconds) until the frames pass every
-- check for face_time seconds in a row, keeping the best of them: each
-- better frame is captured as "best_shot" (with --artifacts: the frame and
-- the face crop). Emits FRAME_REJECTED { codes = {...}, reasons = {...} }
-- whenever the reasons change, with the hint of the first; BEST_SHOT when
-- it passes. On timeout it fails with the reason and code of the last
-- rejection (1007 interaction_timeout when frames were good but not for long enough).
-- describe = "name" also describes the best frame's face under that name.
-- wait_for_command = true: the search (and its timeout) starts only when
-- whoever drives the run sends the command "best_shot" (the preview's
-- POST /api/best-shot; LUNA ID's StartBestShotSearchCommand).
--   wb.best_shot { face_time = 1, timeout = 10 }
function face.best_shot(spec)
  spec = spec or {}
  local where = native.where(2)
  check("wb.best_shot", spec, fields {
    face_time = "number", start_delay = "number", min_face_px = "number", border_px = "number",
    border_left = "number", border_top = "number", border_right = "number", border_bottom = "number",
    max_yaw = "number", max_pitch = "number", max_roll = "number", accept_eyes_closed = "boolean",
    accept_multiple = "boolean", eyes_closed_above = "number", min_quality = "number", quality = "table",
    min_liveness = "number", accept_mask = "boolean", accept_occluded = "boolean", max_occlusion = "number",
    describe = "string", wait_for_command = "boolean",
  }, where)
  local q = spec.quality or {}
  local border = spec.border_px or 10
  local o = {
    min_face_px = spec.min_face_px or 200,
    border = {
      left = spec.border_left or border, top = spec.border_top or border,
      right = spec.border_right or border, bottom = spec.border_bottom or border,
    },
    max_yaw = spec.max_yaw or 25, max_pitch = spec.max_pitch or 25, max_roll = spec.max_roll or 25,
    accept_eyes_closed = spec.accept_eyes_closed == true, accept_multiple = spec.accept_multiple == true,
    eyes_closed_above = spec.eyes_closed_above or 0.5, min_quality = spec.min_quality or 0.5,
    min_liveness = spec.min_liveness or 0.5, accept_mask = spec.accept_mask == true,
    accept_occluded = spec.accept_occluded == true, max_occlusion = spec.max_occlusion or 0.5,
    quality = {
      blur = q.blur or 0.61, darkness = q.darkness or 0.5, lightness = q.lightness or 0.57,
      illumination = q.illumination or 0.1, specularity = q.specularity or 0.1,
    },
  }
  local face_time = spec.face_time or 0
  local start_delay = spec.start_delay or 0
  local timeout = spec.timeout or 10
  local hints = list(spec.hint)
  for _, key in ipairs(spec.hints or {}) do hints[#hints + 1] = key end
  for _, rejection in ipairs(face.rejections) do hints[#hints + 1] = rejection.hint end
  local step = {
    name = spec.name or "best shot", hint = spec.hint, hint_params = spec.hint_params, passed = spec.passed,
    needs = { "face", "image.width", "image.height" }, hints = hints,
    -- Waiting for the command has no end: the search's own timeout starts with it.
    timeout = not spec.wait_for_command and timeout + 1 or nil,
  }
  -- describe = "name": the best frame's face is also described under that
  -- name, for wb.enroll, wb.verify or wb.identify after it.
  if spec.describe then step.needs[#step.needs + 1] = "face.descriptor" end
  -- The live probability costs a model's inference (or a service's answer) a frame, so the
  -- search asks for it by name, and only when it judges it and the run has a source of it.
  local function set(value)
    if type(value) == "table" then
      for _, item in ipairs(value) do if item ~= "" then return true end end
      return false
    end
    return type(value) == "string" and value ~= ""
  end
  local judges_liveness = o.min_liveness > 0 and (set(run_setting("pad.model")) or set(run_setting("pad.url")))
  if judges_liveness then step.needs[#step.needs + 1] = "face.liveness" end
  local started, good_since, best_score, last_key, last_reason
  local commanded
  local user_start = spec.start
  function step.start(self, ctx)
    started, good_since, best_score, last_key, last_reason = nil, nil, nil, nil, nil
    commanded = not spec.wait_for_command
    if user_start then user_start(self, ctx) end
  end
  function step.update(self, m, ctx)
    if not commanded then
      if not ctx.command("best_shot") then return nil end
      commanded = true
      ctx.status("BEST_SHOT_SEARCH_STARTED")
    end
    started = started or m.t
    if m.t - started > timeout then
      local rejection = by_reason[last_reason or ""]
      if rejection then return false, rejection.reason, rejection.code end
      return false, "interaction_timeout", 1007
    end
    if m.t - started < start_delay then return nil end
    local reasons = face.rejected(m, o)
    local key = table.concat(reasons, ",")
    if key ~= last_key then
      last_key = key
      if #reasons > 0 then
        local codes = {}
        for i, reason in ipairs(reasons) do codes[i] = by_reason[reason].code end
        ctx.status("FRAME_REJECTED", { codes = codes, reasons = reasons })
        ctx.hint(by_reason[reasons[1]].hint)
      elseif self.hint then
        ctx.hint(self.hint, self.hint_params)
      end
    end
    if #reasons > 0 then
      good_since, best_score, last_reason = nil, nil, reasons[1]
      return nil
    end
    -- A service answers frames later: a frame is judged live only with an answer, and no answer
    -- at all is the service's failure, never a pass.
    if judges_liveness and type(m.face.liveness) ~= "number" then
      if m.face.liveness_error ~= nil then
        ctx.log("best shot: " .. m.face.liveness_error)
        return false, "liveness_unavailable", 1020
      end
      return nil
    end
    last_reason = nil
    good_since = good_since or m.t
    local score = face.quality_score(m) or 0
    if best_score == nil or score > best_score then
      best_score = score
      ctx.capture("best_shot")
      if spec.describe then ctx.describe_face(spec.describe, "face") end
    end
    if m.t - good_since >= face_time then
      ctx.status("BEST_SHOT", { score = math.floor(best_score * 1000 + 0.5) / 1000 })
      return true
    end
  end
  return step
end

return face
