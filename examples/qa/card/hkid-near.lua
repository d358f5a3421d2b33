-- Too near: NEAR, then VALID.
return {
  name = "HKID 2018: NEAR, then VALID",
  flow = "../../hkid-2018.lua",
  input = "../../traces/hkid-2018-pass.jsonl",
  faults = { { measure = { field = "card.size_ratio", set = 0.95, from = 0, to = 0.6 } } },
  expect = { result = 0, events = { "status:NEAR", "hint:idcard_operation_title14", "status:VALID", "status:COMPLETE" } },
}
