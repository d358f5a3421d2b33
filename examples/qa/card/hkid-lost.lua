-- The card leaves the frame after the first flip and does not come back:
-- result 3 (lost) 1.5 s later.
return {
  name = "HKID 2018: a card that leaves the frame is lost",
  flow = "../../hkid-2018.lua",
  input = "../../traces/hkid-2018-pass.jsonl",
  faults = { { measure = { field = "card.found", set = false, from = 2.4 } } },
  expect = {
    result = { code = 3, reason = "lost" },
    events = { "status:BEGIN", "intermediate:first", "result:lost" },
    within = { ["result:lost"] = { min = 3.85, max = 3.95 } },
  },
}
