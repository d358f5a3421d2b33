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
local function one_face(_, m, ctx)
  local count = m.face and m.face.count or 0
  if count == 1 then
    ctx.status("FACE_FOUND")
    return true
  end
  ctx.hint(count == 0 and "face.not_found" or "face.multiple")
end

return wb.flow {
  name = "liveness",
  description = "Face front-on, blink once, turn the head to the left",
  time_limit = 20,
  messages = { "face.not_found", "face.multiple" },
  steps = {
    wb.step { name = "one face", needs = { "face.count" }, update = one_face },
    wb.range { name = "face front-on", field = "face.yaw", min = -S.liveness.front_yaw,
               max = S.liveness.front_yaw, hold_ms = 300, hint = "face.look_straight" },
    wb.sequence { name = "blink", hint = "face.blink",
      wb.threshold { value = eyes, needs = { "face.ear_left", "face.ear_right" }, below = S.liveness.closed_below },
      wb.threshold { value = eyes, needs = { "face.ear_left", "face.ear_right" }, above = S.liveness.open_above,
                     within_ms = S.liveness.blink_max_ms },
    },
    wb.threshold { name = "turn left", field = "face.yaw", above = S.liveness.turn_yaw, hint = "face.turn_left" },
  },
  on_finish = function(_, ctx, result)
    ctx.status(result.success and "LIVENESS_PASSED" or "LIVENESS_FAILED")
  end,
}
