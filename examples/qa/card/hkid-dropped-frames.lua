-- A fifth of the frames dropped, and clock jitter: the check still passes.
return {
  name = "HKID 2018: passes with 20% of the frames dropped and 5 ms jitter",
  flow = "../../hkid-2018.lua",
  input = "../../traces/hkid-2018-pass.jsonl",
  seed = 3,
  faults = { { drop = 0.2 }, { jitter_ms = 5 } },
  expect = { result = 0, events = { "status:COMPLETE" } },
}
