-- Dynamic Liveness, one interaction: look at the camera, then blink.
-- The blink is measured against the person's own open-eye baseline
-- (wb.blink in plugins/wb/face.lua), so narrow eyes and glasses work.
--
--   workbench run examples/liveness-blink.lua --input examples/recordings/face-blink.avi
--   workbench run examples/liveness-blink.lua --camera /dev/video0 --lang zh-HK
local wb = require "wb"

local S = wb.settings {
  ["liveness.interaction_timeout"] = { type = "number", default = 5, min = 1, max = 60, unit = "s",
    doc = "Time each interaction may take (LUNA ID: 5 s)" },
  ["liveness.blink_min_ms"] = { type = "number", default = 40, min = 0, max = 1000, unit = "ms",
    doc = "Shortest time the eyes must stay closed for a blink" },
  ["liveness.blink_max_ms"] = { type = "number", default = 700, min = 50, max = 5000, unit = "ms",
    doc = "Longest time the eyes may stay closed for a blink" },
  ["flow.time_limit"] = 20,
  ["flow.step_timeout"] = 0,
}
local L = S.liveness

return wb.flow {
  name = "liveness-blink",
  codes = { passed = 0, interaction_timeout = 1007, pose_jump = 1018 },
  steps = {
    wb.blink { hint = "face.blink", timeout = L.interaction_timeout,
               min_ms = L.blink_min_ms, max_ms = L.blink_max_ms },
  },
  on_finish = function(flow, ctx, result)
    ctx.status(result.success and "LIVENESS_PASSED" or "LIVENESS_FAILED")
  end,
}
