-- A variant of the HKID 2018 check in a few lines, without copying hkid.lua:
-- the flips must reach 30 degrees (not 25), the first hint is the general
-- tip, and after the check the card must be held still for half a second.
--
--   workbench run examples/hkid-2018-wide.lua --input examples/traces/hkid-2018-pass.jsonl
local wb = require "wb"

return require("hkid").flow("2018", {
  name = "hkid-2018-wide",
  description = "HKID 2018 card: wider flips, then held still",
  settings = { ["hkid.flip_angle"] = 30 },
  hints = { idcard_operation_title1 = "hand_idcard_tip1" },
  after = {
    wb.range { name = "held still", field = "card.speed", max = 20, hold_ms = 500, needs = { "card.speed" } },
  },
})
