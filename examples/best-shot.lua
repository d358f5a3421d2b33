-- Best shot, with LUNA ID's checks and defaults: exactly one face, at least
-- 200 px, 10 px from the edges, eyes open, |yaw|, |pitch|, |roll| ≤ 25°,
-- the image-quality scores on the face, held for face_time seconds. Frames
-- that fail are reported with LUNA ID's codes (FRAME_REJECTED); the best
-- frame is captured as "best_shot" (with --artifacts: the frame and the
-- aligned face crop).
--
--   workbench run examples/best-shot.lua --input examples/recordings/face-blink.avi --artifacts out
local wb = require "wb"

local S = wb.settings {
  ["best_shot.face_time"] = { type = "number", default = 0.5, min = 0, max = 10, unit = "s",
    doc = "How long the face must pass every check before the shot" },
  ["best_shot.start_delay"] = { type = "number", default = 0, min = 0, max = 10, unit = "s",
    doc = "Frames before this are not looked at" },
  ["best_shot.min_face_px"] = { type = "number", default = 200, min = 20, max = 4000, unit = "px",
    doc = "Smallest face box side (1016 too far)" },
  ["best_shot.border_px"] = { type = "number", default = 10, min = 0, max = 500, unit = "px",
    doc = "Least distance of the face box to the frame's edges (1017)" },
  ["best_shot.max_angle"] = { type = "number", default = 25, min = 1, max = 90, unit = "deg",
    doc = "Largest |yaw|, |pitch| and |roll| (1002 head turned)" },
  ["best_shot.accept_eyes_closed"] = { type = "boolean", default = false,
    doc = "Take frames with the eyes closed (otherwise 1006)" },
  ["best_shot.timeout"] = { type = "number", default = 10, min = 1, max = 600, unit = "s",
    doc = "Time to find a best shot" },
  ["flow.time_limit"] = 0,
  ["flow.step_timeout"] = 0,
}
local B = S.best_shot

return wb.flow {
  name = "best-shot",
  codes = {
    passed = 0, bad_quality = 1001, head_turned = 1002, multiple_faces = 1003, no_face = 1005,
    eyes_closed = 1006, interaction_timeout = 1007, blurred = 1011, too_dark = 1012, too_light = 1013,
    uneven_light = 1014, specular = 1015, too_far = 1016, overlaps_border = 1017,
  },
  steps = {
    wb.best_shot {
      hint = "face.hold", timeout = B.timeout, face_time = B.face_time, start_delay = B.start_delay,
      min_face_px = B.min_face_px, border_px = B.border_px, max_yaw = B.max_angle, max_pitch = B.max_angle,
      max_roll = B.max_angle, accept_eyes_closed = B.accept_eyes_closed,
    },
  },
}
