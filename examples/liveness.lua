-- Face front-on, one blink, then a turn to the left.
--
--   workbench run examples/liveness.lua --input examples/traces/liveness-pass.jsonl
--
-- Measurements (see docs/traces.md): face.count, face.yaw (degrees, positive
-- when the person turns to their left), face.ear_left / face.ear_right (eye
-- aspect ratio, about 0.3 open and under 0.15 closed).

local wb = require "wb"

local S = wb.settings {
  ["liveness.front_yaw"] = { type = "number", default = 10, min = 0, max = 45, unit = "deg",
                             doc = "Largest |yaw| that counts as facing the camera" },
  ["liveness.closed_below"] = { type = "number", default = 0.15, min = 0, max = 1,
                                doc = "Eye aspect ratio below which the eyes count as closed" },
  ["liveness.open_above"] = { type = "number", default = 0.25, min = 0, max = 1,
                              doc = "Eye aspect ratio above which the eyes count as open again" },
  ["liveness.blink_max_ms"] = { type = "integer", default = 500, min = 50, max = 3000, unit = "ms",
                                doc = "Longest a blink may keep the eyes closed" },
  ["liveness.turn_yaw"] = { type = "number", default = 25, min = 5, max = 80, unit = "deg",
                            doc = "Yaw the head must reach to count as turned" },
}

-- Both eyes, as one number: a blink closes both.
local function eyes(m)
  local face = m.face
  if face == nil or face.ear_left == nil or face.ear_right == nil then return nil end
  return math.min(face.ear_left, face.ear_right)
end

-- A step's update as a plain function: exactly one face before anything else.
-- A message key, or the one a variant shows instead.
local renamed = {}
local function K(key) return renamed[key] or key end

local function one_face(_, m, ctx)
  local count = m.face and m.face.count or 0
  if count == 1 then
    ctx.status("FACE_FOUND")
    return true
  end
  ctx.hint(K(count == 0 and "face.not_found" or "face.multiple"))
end

-- The flow, or a variant of it: require("liveness").variant { ... } takes
-- name, description, settings (this variant's defaults; --set still wins),
-- hints (a message key shown instead of another), before, after (steps),
-- and replace (a step by its name). examples/liveness-strict.lua is one.
-- parallax = true: the turn is wb.head_turn, which must also show the
-- parallax of a real head (face.parallax above parallax.threshold) and no
-- jump (face.pose_jump): a flat picture or a photo swap fails it.
local function build(overrides)
  overrides = overrides or {}
  -- Level 2: the variant that called variant() declares these values.
  if overrides.settings then S = wb.settings(overrides.settings, 2) end
  renamed = overrides.hints or {}
  local steps = {
    wb.step { name = "one face", needs = { "face.count" }, update = one_face },
    wb.range { name = "face front-on", field = "face.yaw", min = -S.liveness.front_yaw,
               max = S.liveness.front_yaw, hold_ms = 300, hint = K("face.look_straight") },
    wb.sequence { name = "blink", hint = K("face.blink"),
      wb.threshold { value = eyes, needs = { "face.ear_left", "face.ear_right" }, below = S.liveness.closed_below },
      wb.threshold { value = eyes, needs = { "face.ear_left", "face.ear_right" }, above = S.liveness.open_above,
                     within_ms = S.liveness.blink_max_ms },
    },
    overrides.parallax
      and wb.head_turn { name = "turn left", direction = "left", start_angle = S.liveness.front_yaw,
                         end_angle = S.liveness.turn_yaw, parallax = true, timeout = 10, hint = K("face.turn_left") }
      or wb.threshold { name = "turn left", field = "face.yaw", above = S.liveness.turn_yaw,
                        hint = K("face.turn_left") },
  }
  local replace = overrides.replace or {}
  local list = {}
  for _, step in ipairs(overrides.before or {}) do list[#list + 1] = step end
  for _, step in ipairs(steps) do
    list[#list + 1] = replace[step.name] or step
    replace[step.name] = nil
  end
  for _, step in ipairs(overrides.after or {}) do list[#list + 1] = step end
  local unknown = next(replace)
  if unknown ~= nil then
    error("liveness.variant: replace names '" .. tostring(unknown) .. "', which is not a step (its steps: 'one face', "
      .. "'face front-on', 'blink', 'turn left')", 2)
  end
  local flow = wb.flow {
    name = overrides.name or "liveness",
    description = overrides.description or "Face front-on, blink once, turn the head to the left",
    time_limit = 20,
    messages = { K("face.not_found"), K("face.multiple") },
    steps = list,
    on_finish = function(_, ctx, result)
      ctx.status(result.success and "LIVENESS_PASSED" or "LIVENESS_FAILED")
    end,
  }
  flow.variant = build
  return flow
end

return build()
