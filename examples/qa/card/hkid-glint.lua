-- A short glint (half a second) shows the hint, then the check goes on and passes.
return {
  name = "HKID 2018: a short glint does not end the check",
  flow = "../../hkid-2018.lua",
  input = "../../traces/hkid-2018-pass.jsonl",
  faults = { { measure = { field = "card.glare", set = 0.35, from = 1.0, to = 1.5 } } },
  expect = { result = 0, events = { "hint:idcard_operation_title6", "status:COMPLETE" } },
}
