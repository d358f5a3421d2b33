-- The 2018 card flipped right, back, left, back: every status in order,
-- the intermediate result "first", and success.
return {
  name = "HKID 2018: right, back, left, back passes",
  flow = "../../hkid-2018.lua",
  input = "../../traces/hkid-2018-pass.jsonl",
  expect = {
    result = { code = 0, reason = "passed" },
    events = {
      "hint:idcard_operation_title1", "status:BEGIN", "hint:idcard_operation_title2", "status:ORTH",
      "intermediate:first", "status:RESET", "hint:idcard_operation_title12", "hint:idcard_operation_title3",
      "status:LEFTDOWN", "status:RESET", "status:COMPLETE", "hint:idcard_operation_title7",
      "result:passed",
    },
    count = { ["intermediate:first"] = 1, ["status:FAR"] = 0, ["status:OVERSPEED"] = 0 },
  },
}
