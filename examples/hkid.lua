-- The HKID card flip check, shared by hkid-2018.lua and hkid-2003.lua:
--
--   BEGIN     the card is looked for; it must be held front-on
--   ORTH      first flip: right (2018 card) or up (2003 card)
--   RESET     back to front-on
--   LEFTDOWN  second flip: left (2018) or down (2003)
--   RESET     back to front-on
--   COMPLETE  done: result 0, with the still image and the portrait
--
-- Through all of it, FAR / NEAR / OVERSPEED are raised when the card is too
-- far, too near or turned too fast, and VALID when that is back to normal;
-- the flow goes on. It ends early with result 2 (exposure) when the glare
-- stays too strong, 3 (lost) when the card is gone for too long, and 4
-- (overtime) when the whole check takes too long. The first flip is
-- reported at once as the intermediate result 1 (first), with the still
-- image of that moment.
--
-- Measurements (docs/card.md): card.found, card.tilt_x (positive: the top
-- edge tips away, "up"), card.tilt_y (positive: flipped to the holder's
-- right), card.size_ratio (the card's width over the frame's, were it held
-- front-on at its distance: FAR and NEAR read it, so that turning the card
-- never makes it "far"), card.speed (deg/s), card.glare (0-1).
local wb = require "wb"

local hkid = {}

local S = wb.settings {
  ["hkid.flip_angle"] = { type = "number", default = 25, min = 5, max = 80, unit = "deg",
    doc = "Tilt that counts as a flip (right/left about the vertical axis, up/down about the horizontal)" },
  ["hkid.front_angle"] = { type = "number", default = 10, min = 1, max = 45, unit = "deg",
    doc = "Largest tilt on either axis that counts as front-on" },
  ["hkid.front_hold_ms"] = { type = "number", default = 300, min = 0, max = 5000, unit = "ms",
    doc = "How long the card must stay front-on to count" },
  ["hkid.far_ratio"] = { type = "number", default = 0.30, min = 0.05, max = 1,
    doc = "Card width / frame width, held front-on at its distance (card.size_ratio), below which the card is too far (FAR)" },
  ["hkid.near_ratio"] = { type = "number", default = 0.85, min = 0.1, max = 2,
    doc = "Card width / frame width, held front-on at its distance (card.size_ratio), above which the card is too near (NEAR)" },
  ["hkid.max_speed"] = { type = "number", default = 150, min = 10, max = 2000, unit = "deg/s",
    doc = "Turning speed above which the card turns too fast (OVERSPEED)" },
  ["hkid.alert_ms"] = { type = "number", default = 100, min = 0, max = 5000, unit = "ms",
    doc = "How long a FAR, NEAR or OVERSPEED condition must last before it is raised" },
  ["hkid.glare_max"] = { type = "number", default = 0.08, min = 0, max = 1,
    doc = "Share of the card's pixels that may be glare; above it the hint says too bright" },
  ["hkid.exposure_ms"] = { type = "number", default = 1000, min = 0, max = 10000, unit = "ms",
    doc = "How long too much glare may last before the check ends with exposure (2)" },
  ["hkid.lost_ms"] = { type = "number", default = 1500, min = 0, max = 10000, unit = "ms",
    doc = "How long the card may be out of sight, once seen, before the check ends with lost (3)" },
  ["hkid.overtime"] = { type = "number", default = 30, min = 1, max = 600, unit = "s",
    doc = "Time the whole check may take before it ends with overtime (4)" },
  ["hkid.check_speed"] = { type = "boolean", default = true,
    doc = "Raise OVERSPEED when the card turns too fast (the SDK's speed check; off: never)" },
  ["hkid.check_glare"] = { type = "boolean", default = true,
    doc = "Check the card's glare: the too-bright hint and the exposure result (the SDK's brightness check; off: never)" },
  ["flow.time_limit"] = 0,
  ["flow.step_timeout"] = 0,
}
local H = S.hkid

local function found(m) return m.card ~= nil and m.card.found == true end

local function front_on(m)
  return found(m) and m.card.tilt_x ~= nil and m.card.tilt_y ~= nil
    and math.abs(m.card.tilt_x) <= H.front_angle and math.abs(m.card.tilt_y) <= H.front_angle
    and m.card.size_ratio ~= nil and m.card.size_ratio >= H.far_ratio and m.card.size_ratio <= H.near_ratio
end

local needs = { "card.found", "card.tilt_x", "card.tilt_y", "card.size_ratio", "card.speed", "card.glare" }

local function back_to_front(name, hint, passed_hint)
  return wb.range {
    name = name, value = function(m) return front_on(m) and 1 or 0 end, min = 1, hold_ms = H.front_hold_ms,
    needs = needs, hint = hint, hints = { passed_hint },
    start = function(self, ctx) ctx.status("RESET") end,
    passed = function(self, m, ctx) ctx.hint(passed_hint) end,
  }
end

-- The flow's parts, for flows that build on the card check (such as
-- card-then-face.lua): name, description, codes, messages, steps, watch,
-- on_finish, and `phase`, whose field `card` the watchers read: while it
-- is true they watch the card; a flow that goes on to something else sets
-- it to false so that a card put away is not "lost".
--
-- generation "2018": flipped right, back, left, back (about the vertical
-- axis, card.tilt_y); "2003": up, back, down, back (card.tilt_x).
function hkid.parts(generation, overrides)
  overrides = overrides or {}
  local renamed = overrides.hints or {}
  -- A message key, or the one the variant shows instead.
  local function K(key) return key and (renamed[key] or key) end
  local phase = { card = true }
  local axis = generation == "2018" and "card.tilt_y" or "card.tilt_x"
  local first_hint = K(generation == "2018" and "idcard_operation_title2" or "idcard_operation_title4")
  local first_done_hint = K(generation == "2018" and "idcard_operation_title8" or "idcard_operation_title9")
  local second_hint = K(generation == "2018" and "idcard_operation_title3" or "idcard_operation_title5")

  -- "lost" only counts once the card has been seen: before that the person
  -- is still bringing it, and overtime applies.
  local seen = false
  local function gone(m)
    if found(m) then seen = true end
    return phase.card and seen and not found(m)
  end
  local function watching(m) return phase.card and found(m) end

  return {
    phase = phase,
    name = "hkid-" .. generation,
    description = "HKID " .. generation .. " card: flip " .. (generation == "2018" and "right, back, left, back" or "up, back, down, back"),
    codes = { passed = 0, first = 1, exposure = 2, lost = 3, overtime = 4 },
    messages = { K("idcard_operation_title7"), K("idcard_operation_title11"), K("result_fail_title1"), K("hand_idcard_tip1") },
    steps = {
      wb.range {
        name = "card front-on", value = function(m) return front_on(m) and 1 or 0 end, min = 1,
        hold_ms = H.front_hold_ms, needs = needs, hint = K("idcard_operation_title1"),
        hints = { K("idcard_operation_title10") },
        start = function(self, ctx) ctx.status("BEGIN") end,
        passed = function(self, m, ctx) ctx.hint(K("idcard_operation_title10")) end,
      },
      wb.threshold {
        name = generation == "2018" and "flip right" or "flip up", field = axis, above = H.flip_angle,
        needs = needs, hint = first_hint,
        start = function(self, ctx) ctx.status("ORTH") end,
        passed = function(self, m, ctx)
          local images = ctx.capture("first")
          ctx.intermediate("first", 1, { images = images, tilt = m.card.tilt_x and { x = m.card.tilt_x, y = m.card.tilt_y } })
        end,
      },
      back_to_front("back to front", first_done_hint, K("idcard_operation_title12")),
      wb.threshold {
        name = generation == "2018" and "flip left" or "flip down", field = axis, below = -H.flip_angle,
        needs = needs, hint = second_hint,
        start = function(self, ctx) ctx.status("LEFTDOWN") end,
        passed = function(self, m, ctx) ctx.capture("second") end,
      },
      back_to_front("back to front again", nil, K("idcard_operation_title12")),
    },
    watch = {
      wb.alert { status = "FAR", when = function(m) return watching(m) and m.card.size_ratio ~= nil and m.card.size_ratio < H.far_ratio end,
                 needs = needs, for_ms = H.alert_ms, hint = K("idcard_operation_title13") },
      wb.alert { status = "NEAR", when = function(m) return watching(m) and m.card.size_ratio ~= nil and m.card.size_ratio > H.near_ratio end,
                 needs = needs, for_ms = H.alert_ms, hint = K("idcard_operation_title14") },
      wb.alert { status = "OVERSPEED", when = function(m) return H.check_speed and watching(m) and m.card.speed ~= nil and m.card.speed > H.max_speed end,
                 needs = needs, for_ms = H.alert_ms, hint = K("idcard_operation_title15") },
      wb.guard { reason = "exposure", code = 2, when = function(m) return H.check_glare and watching(m) and m.card.glare ~= nil and m.card.glare > H.glare_max end,
                 needs = needs, for_ms = H.exposure_ms, hint = K("idcard_operation_title6") },
      wb.guard { reason = "lost", code = 3, when = gone, needs = needs, for_ms = H.lost_ms },
      wb.guard { reason = "overtime", code = 4, hint = K("idcard_operation_title11"),
                 when = function(m, ctx) return phase.card and m.t - (ctx.flow_started_at or m.t) >= H.overtime end },
    },
    on_finish = function(flow, ctx, result)
      if result.success then
        ctx.status("COMPLETE")
        ctx.hint(K("idcard_operation_title7"))
        ctx.capture("complete")
      elseif result.reason ~= "overtime" then
        ctx.hint(K("result_fail_title1"))
      end
    end,
  }
end

-- The flow. A variant is a few lines (examples/hkid-2018-wide.lua):
--
--   require("hkid").flow("2018", {
--     name = "...", description = "...",
--     settings = { ["hkid.flip_angle"] = 35 },   -- defaults of this variant (--set still wins)
--     hints = { idcard_operation_title2 = "my.flip_right" },  -- a key shown instead of another
--     before = { step, ... },                    -- steps before the card check
--     after = { step, ... },                     -- steps after it
--     replace = { ["flip left"] = step },        -- a step of the check, by name
--     watch = { watcher, ... },                  -- more alerts and guards
--   })
function hkid.flow(generation, overrides)
  overrides = overrides or {}
  -- Level 2: the variant that called hkid.flow declares these values.
  if overrides.settings then H = wb.settings(overrides.settings, 2).hkid end
  local parts = hkid.parts(generation, overrides)
  parts.phase = nil
  parts.name = overrides.name or parts.name
  parts.description = overrides.description or parts.description
  local steps = {}
  for _, step in ipairs(overrides.before or {}) do steps[#steps + 1] = step end
  local replace = overrides.replace or {}
  local names = {}
  for _, step in ipairs(parts.steps) do
    names[#names + 1] = "'" .. step.name .. "'"
    steps[#steps + 1] = replace[step.name] or step
  end
  for name in pairs(replace) do
    local known = false
    for _, step in ipairs(parts.steps) do known = known or step.name == name end
    if not known then
      error("hkid.flow: replace names '" .. tostring(name) .. "', which is not a step of the check (its steps: "
        .. table.concat(names, ", ") .. ")", 2)
    end
  end
  for _, step in ipairs(overrides.after or {}) do steps[#steps + 1] = step end
  parts.steps = steps
  for _, watcher in ipairs(overrides.watch or {}) do parts.watch[#parts.watch + 1] = watcher end
  return wb.flow(parts)
end

return hkid
