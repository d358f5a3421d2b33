-- {{name}}: a face liveness flow, made by `workbench new`. A blink, then the
-- head turned to the left. Change it, then:
--   workbench check {{folder}}/{{name}}.lua
--   workbench test {{folder}}/qa
-- docs/flow-api.md is the reference; the QA scenarios in qa/ run it on the
-- face scenes in scenes/ (docs/synth.md).
local wb = require "wb"

local S = wb.settings {
  ["{{id}}.turn_angle"] = { type = "number", default = 25, min = 10, max = 60, unit = "deg",
                            doc = "Yaw the head must reach to the left" },
  ["{{id}}.interaction_timeout"] = { type = "number", default = 5, min = 1, max = 60, unit = "s",
                                     doc = "Time each interaction may take" },
}
local T = S["{{id}}"]

return wb.flow {
  name = "{{name}}",
  description = "Blink once, then turn the head to the left",
  time_limit = 20,
  codes = { passed = 0, interaction_timeout = 1007, pose_jump = 1018 },
  steps = {
    wb.blink { name = "blink", hint = "{{id}}.blink", timeout = T.interaction_timeout },
    wb.head_turn { name = "turn left", direction = "left", hint = "{{id}}.turn_left",
                   timeout = T.interaction_timeout, end_angle = T.turn_angle },
  },
  on_finish = function(_, ctx, result)
    ctx.status(result.success and "LIVENESS_PASSED" or "LIVENESS_FAILED")
  end,
}
