-- Best shot, with LUNA ID's checks and defaults: exactly one face, at least
-- 200 px, 10 px from the edges, eyes open, |yaw|, |pitch|, |roll| ≤ 25°,
-- the image-quality scores on the face, held for face_time seconds. Frames
-- that fail are reported with LUNA ID's codes (FRAME_REJECTED); the best
-- frame is captured as "best_shot" (with --artifacts: the frame and the
-- aligned face crop).
--
-- Every threshold is a setting, with LUNA ID's default and, in its
-- description, the name LUNA ID gives it; `workbench settings
-- examples/best-shot.lua` lists them. LUNA ID's AGS, the detection-score
-- floor under which a face is no face (1005), is the face estimator's
-- setting face.min_detection_confidence, 0.5 as in LUNA ID.
--
--   workbench run examples/best-shot.lua --input examples/recordings/face-blink.avi --artifacts out
local wb = require "wb"

local S = wb.settings {
  ["best_shot.face_time"] = { type = "number", default = 0.5, min = 0, max = 10, unit = "s",
    doc = "How long the face must pass every check before the shot" },
  ["best_shot.start_delay"] = { type = "number", default = 0, min = 0, max = 10, unit = "s",
    doc = "Frames before this are not looked at" },
  ["best_shot.min_face_px"] = { type = "number", default = 200, min = 20, max = 4000, unit = "px",
    doc = "Smallest face box side (LUNA ID: minFaceSize; 1016 too far)" },
  ["best_shot.border_left"] = { type = "number", default = 10, min = 0, max = 2000, unit = "px",
    doc = "Least distance of the face box to the frame's left edge (LUNA ID: borderDistance, the face recognition area; 1017)" },
  ["best_shot.border_top"] = { type = "number", default = 10, min = 0, max = 2000, unit = "px",
    doc = "Least distance of the face box to the frame's top edge (LUNA ID: borderDistance; 1017)" },
  ["best_shot.border_right"] = { type = "number", default = 10, min = 0, max = 2000, unit = "px",
    doc = "Least distance of the face box to the frame's right edge (LUNA ID: borderDistance; 1017)" },
  ["best_shot.border_bottom"] = { type = "number", default = 10, min = 0, max = 2000, unit = "px",
    doc = "Least distance of the face box to the frame's bottom edge (LUNA ID: borderDistance; 1017)" },
  ["best_shot.max_yaw"] = { type = "number", default = 25, min = 1, max = 90, unit = "deg",
    doc = "Largest |yaw| (LUNA ID: yawThreshold; 1002 head turned)" },
  ["best_shot.max_pitch"] = { type = "number", default = 25, min = 1, max = 90, unit = "deg",
    doc = "Largest |pitch| (LUNA ID: pitchThreshold; 1002 head turned)" },
  ["best_shot.max_roll"] = { type = "number", default = 25, min = 1, max = 90, unit = "deg",
    doc = "Largest |roll| (LUNA ID: rollThreshold; 1002 head turned)" },
  ["best_shot.blur"] = { type = "number", default = 0.61, min = 0, max = 1,
    doc = "Least face.quality.blur, 1 sharp (LUNA ID: blurThreshold; 1011 blurred)" },
  ["best_shot.light"] = { type = "number", default = 0.57, min = 0, max = 1,
    doc = "Least face.quality.lightness, 1 not overexposed (LUNA ID: lightThreshold; 1013 too light)" },
  ["best_shot.dark"] = { type = "number", default = 0.50, min = 0, max = 1,
    doc = "Least face.quality.darkness, 1 not too dark (LUNA ID: darknessThreshold; 1012 too dark)" },
  ["best_shot.illumination"] = { type = "number", default = 0.1, min = 0, max = 1,
    doc = "Least face.quality.illumination, 1 even (LUNA ID: illuminationThreshold; 1014 uneven light)" },
  ["best_shot.specularity"] = { type = "number", default = 0.1, min = 0, max = 1,
    doc = "Least face.quality.specularity, 1 no glare (LUNA ID: specularityThreshold; 1015 specular)" },
  ["best_shot.accept_eyes_closed"] = { type = "boolean", default = false,
    doc = "Take frames with the eyes closed (LUNA ID: acceptEyesClosed; otherwise BadEyesStatus, 1001)" },
  ["best_shot.min_liveness"] = { type = "number", default = 0.5, min = 0, max = 1,
    doc = "Least face.liveness, when an estimator plugin provides it (LUNA ID: livenessQuality; 1004 liveness not passed)" },
  ["best_shot.accept_mask"] = { type = "boolean", default = false,
    doc = "Take frames with a medical mask, when a plugin provides face.mask (otherwise 1008, or 1009 misplaced)" },
  ["best_shot.accept_occluded"] = { type = "boolean", default = false,
    doc = "Take frames with an occluded face, when a plugin provides face.occlusion (LUNA ID: acceptOccludedFaces; otherwise 1010)" },
  ["best_shot.timeout"] = { type = "number", default = 10, min = 1, max = 600, unit = "s",
    doc = "Time to find a best shot (1007 when it runs out)" },
  ["best_shot.wait_for_command"] = { type = "boolean", default = false,
    doc = "Start the search only when told (the preview's POST /api/best-shot; LUNA ID: StartBestShotSearchCommand)" },
  ["flow.time_limit"] = 0,
  ["flow.step_timeout"] = 0,
}
local B = S.best_shot

return wb.flow {
  name = "best-shot",
  codes = {
    passed = 0, initialization_failed = 1000, bad_quality = 1001, eyes_closed = 1001, head_turned = 1002,
    multiple_faces = 1003, liveness_failed = 1004, no_face = 1005, interaction_timeout = 1007,
    medical_mask = 1008, mask_misplaced = 1009, occluded = 1010, blurred = 1011, too_dark = 1012,
    too_light = 1013, uneven_light = 1014, specular = 1015, too_far = 1016, overlaps_border = 1017,
    liveness_unavailable = 1020,
  },
  steps = {
    wb.best_shot {
      hint = "face.hold", timeout = B.timeout, face_time = B.face_time, start_delay = B.start_delay,
      min_face_px = B.min_face_px, border_left = B.border_left, border_top = B.border_top,
      border_right = B.border_right, border_bottom = B.border_bottom,
      max_yaw = B.max_yaw, max_pitch = B.max_pitch, max_roll = B.max_roll,
      accept_eyes_closed = B.accept_eyes_closed, min_liveness = B.min_liveness, accept_mask = B.accept_mask,
      accept_occluded = B.accept_occluded, wait_for_command = B.wait_for_command,
      quality = { blur = B.blur, lightness = B.light, darkness = B.dark, illumination = B.illumination,
                  specularity = B.specularity },
    },
  },
}
