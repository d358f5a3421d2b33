-- A variant of examples/liveness.lua in a few lines, without copying it:
-- the head must turn further (30 degrees, not 25), and one more blink
-- closes the check.
--
--   workbench synth face --schedule examples/synth/face-every-interaction.json --out every.jsonl
--   workbench run examples/liveness-strict.lua --input every.jsonl
local wb = require "wb"

return require("liveness").variant {
  name = "liveness-strict",
  description = "Face front-on, a blink, a wider turn to the left, and another blink",
  settings = { ["liveness.turn_yaw"] = 30 },
  after = { wb.blink { name = "blink again", hint = "face.blink" } },
}
