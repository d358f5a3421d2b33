-- The card, then its holder (Uqudo's document-then-face session): the HKID
-- 2018 card's flip check (hkid.lua), then the card's portrait is described
-- while the card is still held front-on, then a blink (a live person), then
-- the live face's best shot is compared with the portrait. Someone who is
-- not the person on the card fails with face_no_match (2001, Uqudo's
-- FACE_NO_MATCH), which the analytics trace reports too. The card's own
-- results (1 first, 2 exposure, 3 lost, 4 overtime) hold for its part.
--
--   workbench run examples/card-then-face.lua --camera /dev/video0
--   workbench run examples/card-then-face.lua --input card-then-face.avi --analytics trace.jsonl
--
-- No gallery is needed: the two faces are compared with each other
-- (gallery.threshold, 0.6).
local wb = require "wb"
local hkid = require "hkid"
local shared = require "gallery_flows"

local S = shared.settings {
  ["card_face.portrait_timeout"] = { type = "number", default = 3, min = 0.5, max = 60, unit = "s",
    doc = "Time to find a face in the card's portrait once the card is back front-on" },
}

local card = hkid.parts("2018")
local steps = {}
for _, step in ipairs(card.steps) do steps[#steps + 1] = step end
steps[#steps + 1] = wb.describe_face {
  name = "card portrait", as = "card", source = "portrait", timeout = S.card_face.portrait_timeout,
  hint = "identity.card_portrait",
  -- The card is done with: putting it away is not "lost".
  passed = function(_, _, ctx)
    card.phase.card = false
    ctx.capture("card")
    ctx.status("CARD_COMPLETE")
  end,
}
for _, step in ipairs(shared.live_best_shot(S, "live")) do steps[#steps + 1] = step end
steps[#steps + 1] = wb.compare_faces { name = "face matches card", faces = { "live", "card" } }

local codes = {}
for reason, code in pairs(card.codes) do codes[reason] = code end
for reason, code in pairs(shared.codes) do codes[reason] = codes[reason] or code end

local messages = {}
for _, key in ipairs(card.messages) do messages[#messages + 1] = key end

return wb.flow {
  name = "card-then-face",
  description = "HKID 2018 card flip, then a live face that must match the card's portrait",
  codes = codes,
  results = { passed = "card_face.passed" },
  messages = messages,
  steps = steps,
  watch = card.watch,
  on_finish = function(_, ctx, result)
    if result.success then
      ctx.status("COMPLETE")
      ctx.hint("identity.matched")
    elseif card.phase.card and result.reason ~= "overtime" then
      ctx.hint("result_fail_title1")
    end
  end,
}
