-- A flat copy of a card (a photo or a printout) held still never flips:
-- the check runs out of time (4, overtime) and never completes.
return {
  name = "HKID 2018: a flat copy held still ends in overtime",
  flow = "../../hkid-2018.lua",
  input = "../../traces/hkid-2018-pass.jsonl",
  set = { ["hkid.overtime"] = 4 },
  faults = {
    { measure = { field = "card.tilt_y", set = 0.5 } },
    { measure = { field = "card.tilt_x", set = -0.3 } },
  },
  expect = {
    result = { code = 4, reason = "overtime" },
    events = { "status:BEGIN", "status:ORTH", "hint:idcard_operation_title11", "result:overtime" },
    absent = { "intermediate:first", "status:LEFTDOWN", "status:COMPLETE" },
    within = { ["result:overtime"] = { min = 3.9, max = 4.1 } },
  },
}
