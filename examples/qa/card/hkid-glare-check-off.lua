-- The SDK's settings page can switch the brightness check off: the same
-- lasting glare neither shows the too-bright hint nor ends with exposure.
return {
  name = "HKID 2018: glare is not checked with hkid.check_glare off",
  flow = "../../hkid-2018.lua",
  input = "../../traces/hkid-2018-pass.jsonl",
  set = { ["hkid.check_glare"] = false },
  faults = { { measure = { field = "card.glare", set = 0.35, from = 1.0 } } },
  expect = { result = 0, absent = { "hint:idcard_operation_title6", "result:exposure" } },
}
