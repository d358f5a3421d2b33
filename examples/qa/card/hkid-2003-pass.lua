-- The 2003 card flipped up, back, down, back.
return {
  name = "HKID 2003: up, back, down, back passes",
  flow = "../../hkid-2003.lua",
  input = "../../traces/hkid-2003-pass.jsonl",
  expect = {
    result = 0,
    events = { "status:BEGIN", "hint:idcard_operation_title4", "status:ORTH", "intermediate:first",
               "hint:idcard_operation_title9", "hint:idcard_operation_title5", "status:LEFTDOWN", "status:COMPLETE" },
  },
}
