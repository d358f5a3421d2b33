-- The 2003 flow does not take flips about the other axis.
return {
  name = "HKID 2003: right/left flips do not count",
  flow = "../../hkid-2003.lua",
  input = "../../traces/hkid-2018-pass.jsonl",
  set = { ["hkid.overtime"] = 4 },
  expect = { result = 4, absent = { "intermediate:first", "status:COMPLETE" } },
}
