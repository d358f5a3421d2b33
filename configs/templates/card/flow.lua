-- {{name}}: an ID card flow, made by `workbench new`. The card held
-- front-on, flipped to the right, and brought back. Change it, then:
--   workbench check {{folder}}/{{name}}.lua
--   workbench test {{folder}}/qa
-- docs/flow-api.md is the reference, docs/card.md the card's measurements;
-- the QA scenarios in qa/ run it on the card scenes in scenes/ (docs/synth.md).
local wb = require "wb"

local S = wb.settings {
  ["{{id}}.flip_angle"] = { type = "number", default = 25, min = 5, max = 80, unit = "deg",
                            doc = "Tilt (card.tilt_y) the flip must reach" },
  ["{{id}}.front_angle"] = { type = "number", default = 10, min = 1, max = 45, unit = "deg",
                             doc = "Largest tilt that counts as front-on" },
  ["{{id}}.far_ratio"] = { type = "number", default = 0.3, min = 0.05, max = 1,
                           doc = "A card narrower than this share of the frame is too far" },
  ["{{id}}.lost_ms"] = { type = "number", default = 1500, min = 0, max = 10000, unit = "ms",
                         doc = "How long the card may be out of sight" },
}
local C = S["{{id}}"]
local needs = { "card.found", "card.tilt_y", "card.size_ratio" }

local function front_on(name, hint)
  return wb.range { name = name, field = "card.tilt_y", min = -C.front_angle, max = C.front_angle,
                    hold_ms = 300, needs = needs, hint = hint }
end

return wb.flow {
  name = "{{name}}",
  description = "The card front-on, flipped to the right, and back",
  time_limit = 30,
  step_timeout = 10,
  steps = {
    front_on("front-on", "{{id}}.hold_front"),
    wb.threshold { name = "flip right", field = "card.tilt_y", above = C.flip_angle, needs = needs,
                   hint = "{{id}}.flip_right" },
    front_on("back", "{{id}}.back"),
  },
  watch = {
    wb.alert { status = "FAR", field = "card.size_ratio", below = C.far_ratio, for_ms = 100, needs = needs,
               hint = "{{id}}.closer" },
    wb.guard { reason = "lost", code = 3, for_ms = C.lost_ms, needs = needs,
               when = function(m) return not (m.card and m.card.found) end },
  },
}
