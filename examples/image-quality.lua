-- Is the picture good enough to check a face? Sharp, lit, not blown out,
-- lit evenly, no glare: all five at once, held for a moment. The checks and
-- their defaults are those of LUNA ID's best shot (docs/estimators.md).
--
--   workbench run examples/image-quality.lua --input examples/recordings/face-blink.avi
--
-- With a camera:
--
--   workbench run examples/image-quality.lua --camera /dev/video0

local wb = require "wb"

local S = wb.settings {
  ["image_quality.min_sharpness"] = { type = "number", default = 0.61, min = 0, max = 1,
    doc = "Lowest quality.blur score (1 = sharp)" },
  ["image_quality.min_light"] = { type = "number", default = 0.50, min = 0, max = 1,
    doc = "Lowest quality.darkness score (1 = well lit)" },
  ["image_quality.min_exposure"] = { type = "number", default = 0.57, min = 0, max = 1,
    doc = "Lowest quality.lightness score (1 = nothing blown out)" },
  ["image_quality.min_evenness"] = { type = "number", default = 0.10, min = 0, max = 1,
    doc = "Lowest quality.illumination score (1 = lit evenly from both sides)" },
  ["image_quality.min_no_glare"] = { type = "number", default = 0.10, min = 0, max = 1,
    doc = "Lowest quality.specularity score (1 = no glare)" },
  ["image_quality.hold_ms"] = { type = "integer", default = 500, min = 0, max = 10000, unit = "ms",
    doc = "How long all the checks must hold together" },
}

-- In the order a person can fix them, each with its hint.
local checks = {
  { field = "darkness", min = S.image_quality.min_light, hint = "quality.too_dark" },
  { field = "lightness", min = S.image_quality.min_exposure, hint = "quality.too_bright" },
  { field = "illumination", min = S.image_quality.min_evenness, hint = "quality.uneven_light" },
  { field = "specularity", min = S.image_quality.min_no_glare, hint = "quality.glare" },
  { field = "blur", min = S.image_quality.min_sharpness, hint = "quality.blurry" },
}

local needs = {}
for i, check in ipairs(checks) do needs[i] = "quality." .. check.field end

local good_since

return wb.flow {
  name = "image-quality",
  description = "All five image-quality checks pass together for a moment",
  time_limit = 10,
  codes = { time_limit = 1001 },  -- LUNA ID's "bad quality"
  steps = {
    wb.step {
      name = "good picture",
      hint = "quality.hold_still",
      needs = needs,
      hints = { "quality.too_dark", "quality.too_bright", "quality.uneven_light", "quality.glare", "quality.blurry" },
      start = function() good_since = nil end,
      update = function(self, m, ctx)
        local quality = m.quality
        if quality == nil then return nil end
        for _, check in ipairs(checks) do
          local score = quality[check.field]
          if score == nil or score < check.min then
            good_since = nil
            ctx.hint(check.hint)
            return nil
          end
        end
        ctx.hint("quality.hold_still")
        good_since = good_since or m.t
        if (m.t - good_since) * 1000 >= S.image_quality.hold_ms then return true end
      end,
    },
  },
}
