-- Glare on the card: the hint says too bright at once, and a second later
-- the check ends with 2 (exposure).
return {
  name = "HKID 2018: glare that stays ends with exposure",
  flow = "../../hkid-2018.lua",
  input = "../../traces/hkid-2018-pass.jsonl",
  faults = { { measure = { field = "card.glare", set = 0.35, from = 1.0 } } },
  expect = {
    result = { code = 2, reason = "exposure" },
    events = { "status:BEGIN", "hint:idcard_operation_title6", "result:exposure" },
    within = { ["result:exposure"] = { min = 1.95, max = 2.05 } },
  },
}
