-- LUNA ID's OneShotLiveness: a best shot that passes LUNA's quality
-- thresholds (blur 0.61, light 0.57, dark 0.50, illumination 0.1,
-- specularity 0.1: LUNA PLATFORM's manual, 6.2) and whose live probability
-- (face.liveness) is at or above oneshot.threshold (0.5, LUNA's for mobile
-- images): a frame below it is rejected with 1004 as the search goes on.
-- Then wb.passive_liveness judges the frames right after the best shot
-- (oneshot.frames of them), so a face that turns into a print after the
-- shot fails too. The liveness comes from a presentation-attack
-- model you bring (pad.model; docs/liveness.md gives working settings for
-- the public ones): without one the run stops at start, initialization_failed
-- (LUNA ID's 1000).
--
-- Results use LUNA ID's codes: 1004 when the face is not live, 1000 when the
-- model does not load; Uqudo's analytics say FACE_LIVENESS_FAILED.
--
--   workbench run examples/oneshot-liveness.lua --input examples/recordings/face-blink.avi \
--     --set oneshot.min_face_px=150 --set pad.model=minifasnet_v2.onnx
local wb = require "wb"

local S = wb.settings {
  ["oneshot.threshold"] = { type = "number", default = 0.5, min = 0, max = 1,
    doc = "Least live probability (face.liveness) of the best shot (LUNA ID: livenessQuality; 1004)" },
  ["oneshot.frames"] = { type = "integer", default = 1, min = 1, max = 30,
    doc = "Frames whose live probability is averaged, from the best shot on" },
  ["oneshot.min_face_px"] = { type = "number", default = 200, min = 20, max = 4000, unit = "px",
    doc = "Smallest face box side (LUNA ID: minFaceSize; 1016 too far)" },
  ["oneshot.timeout"] = { type = "number", default = 10, min = 1, max = 600, unit = "s",
    doc = "Time to find a best shot that passes the quality checks (1007 when it runs out)" },
}

return wb.flow {
  name = "oneshot-liveness",
  description = "A best shot that passes LUNA's quality thresholds, then its live probability",
  time_limit = 30,
  messages = { "face.not_found", "face.multiple" },
  codes = {
    passed = 0, initialization_failed = 1000, bad_quality = 1001, eyes_closed = 1001, head_turned = 1002,
    multiple_faces = 1003, liveness_failed = 1004, no_face = 1005, interaction_timeout = 1007,
    blurred = 1011, too_dark = 1012, too_light = 1013, uneven_light = 1014, specular = 1015, too_far = 1016,
    overlaps_border = 1017, liveness_unavailable = 1020,
  },
  steps = {
    -- Frames below the threshold are rejected with 1004 while the search goes on, as LUNA ID does.
    wb.best_shot { name = "best shot", timeout = S.oneshot.timeout, min_liveness = S.oneshot.threshold,
                   min_face_px = S.oneshot.min_face_px,
                   quality = { blur = 0.61, lightness = 0.57, darkness = 0.50, illumination = 0.1, specularity = 0.1 } },
    wb.passive_liveness { name = "liveness", threshold = S.oneshot.threshold, frames = S.oneshot.frames,
                          hint = "face.hold" },
  },
  on_finish = function(_, ctx, result)
    ctx.status(result.success and "LIVENESS_PASSED" or "LIVENESS_FAILED")
  end,
}
