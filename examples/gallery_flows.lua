-- What the gallery flows (enroll, face-add, verify, identify,
-- card-then-face) share: their settings, result codes and the best shot
-- they describe. `require "gallery_flows"` from a flow in this folder.
local wb = require "wb"

local shared = {}

-- Result codes: LUNA ID's for the face checks, 2xxx for the gallery.
shared.codes = {
  passed = 0, no_face = 1005, multiple_faces = 1003, interaction_timeout = 1007, pose_jump = 1018,
  face_no_match = 2001, user_exists = 2002, user_not_found = 2003, group_not_found = 2004,
  face_not_found = 2005, gallery_unavailable = 2006, invalid_name = 2007, too_many_faces = 2008,
  missing_image = 2009, model_unavailable = 2010,
}

-- The settings every gallery flow has, with those of its own.
function shared.settings(own)
  local spec = {
    ["liveness.interaction_timeout"] = { type = "number", default = 5, min = 1, max = 60, unit = "s",
      doc = "Time the blink may take (LUNA ID: 5 s)" },
    ["best_shot.face_time"] = { type = "number", default = 0.3, min = 0, max = 10, unit = "s",
      doc = "How long the face must pass every check before the shot" },
    ["best_shot.min_face_px"] = { type = "number", default = 100, min = 20, max = 4000, unit = "px",
      doc = "Smallest face box side for the shot" },
    ["best_shot.timeout"] = { type = "number", default = 10, min = 1, max = 600, unit = "s",
      doc = "Time to find a best shot" },
    ["flow.time_limit"] = 60,
    ["flow.step_timeout"] = 0,
  }
  for key, value in pairs(own or {}) do spec[key] = value end
  return wb.settings(spec)
end

-- A blink (a live person), then the best shot, described as `as`.
function shared.live_best_shot(S, as)
  return {
    wb.blink { hint = "face.blink", timeout = S.liveness.interaction_timeout },
    shared.best_shot(S, as),
  }
end

function shared.best_shot(S, as)
  return wb.best_shot {
    name = "best shot " .. as, hint = "face.hold", describe = as, face_time = S.best_shot.face_time,
    min_face_px = S.best_shot.min_face_px, timeout = S.best_shot.timeout,
  }
end

-- Steps followed by more steps, as one list.
function shared.concat(...)
  local all = {}
  for _, list in ipairs { ... } do
    for _, step in ipairs(list) do all[#all + 1] = step end
  end
  return all
end

return shared
