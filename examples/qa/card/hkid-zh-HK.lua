-- The hints in Traditional Chinese.
return {
  name = "HKID 2018: hints in zh-HK",
  flow = "../../hkid-2018.lua",
  input = "../../traces/hkid-2018-pass.jsonl",
  lang = "zh-HK",
  expect = { result = 0, events = { "hint:idcard_operation_title2", "hint:idcard_operation_title7" } },
}
