-- Dynamic Liveness with a random challenge: 3 interactions drawn from 5
-- (blink, turn left, turn right, look up, look down), in an order a
-- replayed video cannot know. The seed is in the session event; --seed N
-- replays a run's order. Angles as LUNA ID: yaw from within 10° of
-- front-on to 30°, pitch from within 5° to 20°.
--
--   workbench run examples/liveness-random.lua --camera /dev/video0
--   workbench run examples/liveness-random.lua --input session.avi --seed 7
local wb = require "wb"

local S = wb.settings {
  ["liveness.interaction_timeout"] = { type = "number", default = 5, min = 1, max = 60, unit = "s",
    doc = "Time each interaction may take (LUNA ID: 5 s)" },
  ["liveness.yaw_start"] = { type = "number", default = 10, min = 0, max = 45, unit = "deg",
    doc = "A head turn starts from within this yaw of front-on" },
  ["liveness.yaw_end"] = { type = "number", default = 30, min = 5, max = 80, unit = "deg",
    doc = "Yaw a head turn must reach" },
  ["liveness.pitch_start"] = { type = "number", default = 5, min = 0, max = 45, unit = "deg",
    doc = "A look up or down starts from within this pitch of front-on" },
  ["liveness.pitch_end"] = { type = "number", default = 20, min = 5, max = 80, unit = "deg",
    doc = "Pitch a look up or down must reach" },
  ["flow.time_limit"] = 40,
  ["flow.step_timeout"] = 0,
}
local L = S.liveness

local function turn(direction, hint)
  return wb.head_turn { name = "turn " .. direction, direction = direction, hint = hint,
                        timeout = L.interaction_timeout, start_angle = L.yaw_start, end_angle = L.yaw_end }
end

local function look(direction, hint)
  return wb.head_pitch { name = "look " .. direction, direction = direction, hint = hint,
                         timeout = L.interaction_timeout, start_angle = L.pitch_start, end_angle = L.pitch_end }
end

return wb.flow {
  name = "liveness-random",
  random = { pick = 3 },
  delay = 0,
  codes = { passed = 0, interaction_timeout = 1007, pose_jump = 1018 },
  steps = {
    wb.blink { name = "blink", hint = "face.blink", timeout = L.interaction_timeout },
    turn("left", "face.turn_left"),
    turn("right", "face.turn_right"),
    look("up", "face.look_up"),
    look("down", "face.look_down"),
  },
  on_finish = function(flow, ctx, result)
    ctx.status(result.success and "LIVENESS_PASSED" or "LIVENESS_FAILED")
  end,
}
