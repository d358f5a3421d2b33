-- FACE_ADD (HyperVerge HyperSecure): a live person's best shot, added to
-- the faces of a user already in the gallery.
--
--   workbench run examples/face-add.lua --input examples/recordings/face-blink.avi \
--     --gallery people.sqlite --set user=alice
--
-- Fails with user_not_found (2003) when the gallery has no such user.
local wb = require "wb"
local shared = require "gallery_flows"

local S = shared.settings {
  user = { type = "string", default = "", doc = "The user whose faces grow (required)" },
}

return wb.flow {
  name = "face-add",
  codes = shared.codes,
  results = { passed = "face_add.passed" },
  steps = shared.concat(shared.live_best_shot(S, "best_shot"), {
    wb.add_faces { user = S.user, faces = { "best_shot" } },
  }),
  messages = { "identity.face_added" },
  on_finish = function(_, ctx, result)
    if result.success then ctx.hint("identity.face_added", { user = S.user }) end
  end,
}
