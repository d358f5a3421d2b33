-- REGISTER (HyperVerge HyperSecure): a live person (a blink), then their
-- best shot, then a new user in the gallery with that face. More shots with
-- enroll.shots (HyperSecure takes at most 5 images per enrollment).
--
--   workbench run examples/enroll.lua --input examples/recordings/face-blink.avi \
--     --gallery people.sqlite --set user=alice --set name="Alice Liddell"
--
-- Fails with user_exists (2002) when the id is taken, group_not_found
-- (2004) when --set group=G names no group (docs/gallery.md).
local wb = require "wb"
local shared = require "gallery_flows"

local S = shared.settings {
  user = { type = "string", default = "", doc = "The new user's id (required)" },
  name = { type = "string", default = "", doc = "The user's display name (default: the id)" },
  group = { type = "string", default = "", doc = "A group to put the user in (it must exist)" },
  ["enroll.shots"] = { type = "integer", default = 1, min = 1, max = 5,
    doc = "Best shots to enroll, one after another (HyperSecure: at most 5)" },
}

local steps = { wb.blink { hint = "face.blink", timeout = S.liveness.interaction_timeout } }
local faces = {}
for shot = 1, S.enroll.shots do
  local as = "shot" .. shot
  steps[#steps + 1] = shared.best_shot(S, as)
  faces[#faces + 1] = as
end
steps[#steps + 1] = wb.enroll { user = S.user, name = S.name, group = S.group, faces = faces }

return wb.flow {
  name = "enroll",
  codes = shared.codes,
  results = { passed = "enroll.passed" },
  steps = steps,
  messages = { "identity.enrolled" },
  on_finish = function(_, ctx, result)
    if result.success then ctx.hint("identity.enrolled", { user = S.user }) end
  end,
}
