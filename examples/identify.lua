-- RECOGNITION (1:N, HyperVerge HyperSecure): who, in a group, is the live
-- person? A blink, the best shot, then the nearest users of the group
-- (identify.top of them, with their distances, in the `identity` event and
-- the IDENTIFIED status).
--
--   workbench run examples/identify.lua --input examples/recordings/face-blink.avi \
--     --gallery people.sqlite --set group=staff
--
-- Fails with face_no_match (2001) when nobody in the group is near enough,
-- group_not_found (2004) when there is no such group. An empty group
-- setting searches every user.
local wb = require "wb"
local shared = require "gallery_flows"

local S = shared.settings {
  group = { type = "string", default = "", doc = "The group to search (empty: every user)" },
  ["identify.top"] = { type = "integer", default = 3, min = 1, max = 100,
    doc = "How many of the nearest users to report" },
}

return wb.flow {
  name = "identify",
  codes = shared.codes,
  results = { passed = "identify.passed" },
  steps = shared.concat(shared.live_best_shot(S, "best_shot"), {
    wb.identify { group = S.group, top = S.identify.top, face = "best_shot", identified_hint = "identity.identified" },
  }),
}
