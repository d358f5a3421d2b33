-- The card starts too far (FAR), comes closer (VALID), and the check passes.
return {
  name = "HKID 2018: FAR, then VALID when the card comes closer",
  flow = "../../hkid-2018.lua",
  input = "../../traces/hkid-2018-pass.jsonl",
  faults = { { measure = { field = "card.size_ratio", set = 0.2, from = 0, to = 0.6 } } },
  expect = {
    result = 0,
    events = { "status:BEGIN", "status:FAR", "hint:idcard_operation_title13", "status:VALID",
               "hint:idcard_operation_title1", "status:COMPLETE" },
    count = { ["status:FAR"] = 1 },
  },
}
