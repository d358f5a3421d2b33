-- VERIFICATION (1:1, HyperVerge HyperSecure): is the live person the user
-- they claim to be? A blink, the best shot, then its descriptor against the
-- user's enrolled faces: the nearest must be under gallery.threshold (0.6).
--
--   workbench run examples/verify.lua --input examples/recordings/face-blink.avi \
--     --gallery people.sqlite --set user=alice
--
-- Fails with face_no_match (2001) when it is someone else, user_not_found
-- (2003) when the gallery has no such user. The `identity` event has the distance.
local wb = require "wb"
local shared = require "gallery_flows"

local S = shared.settings {
  user = { type = "string", default = "", doc = "The user to verify against (required)" },
}

return wb.flow {
  name = "verify",
  codes = shared.codes,
  results = { passed = "verify.passed" },
  steps = shared.concat(shared.live_best_shot(S, "best_shot"), {
    wb.verify { user = S.user, face = "best_shot" },
  }),
  messages = { "identity.verified" },
  on_finish = function(_, ctx, result)
    if result.success then ctx.hint("identity.verified", { user = S.user }) end
  end,
}
