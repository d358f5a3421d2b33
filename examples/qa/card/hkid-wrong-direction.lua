-- Flipped left where the 2018 card wants right first (the first flip of the
-- example trace, mirrored; the second one is left too): neither counts, and
-- nothing after ORTH happens.
return {
  name = "HKID 2018: a flip the wrong way does not count",
  flow = "../../hkid-2018.lua",
  input = "../../traces/hkid-2018-pass.jsonl",
  set = { ["hkid.overtime"] = 4 },
  faults = { { measure = { field = "card.tilt_y", scale = -1, from = 0, to = 2.4 } } },
  expect = {
    result = 4,
    events = { "status:BEGIN", "status:ORTH" },
    absent = { "intermediate:first", "status:RESET", "status:COMPLETE" },
  },
}
