-- Turned too fast during the first flip: OVERSPEED, then VALID; the flow goes on.
return {
  name = "HKID 2018: OVERSPEED while flipping too fast",
  flow = "../../hkid-2018.lua",
  input = "../../traces/hkid-2018-pass.jsonl",
  faults = { { measure = { field = "card.speed", set = 400, from = 1.0, to = 1.3 } } },
  expect = {
    result = 0,
    events = { "status:ORTH", "status:OVERSPEED", "hint:idcard_operation_title15", "status:VALID", "status:COMPLETE" },
  },
}
