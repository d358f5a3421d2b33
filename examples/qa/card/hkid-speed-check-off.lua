-- The SDK's settings page can switch the speed check off: the same fast
-- turn raises no OVERSPEED, and the check passes.
return {
  name = "HKID 2018: no OVERSPEED with hkid.check_speed off",
  flow = "../../hkid-2018.lua",
  input = "../../traces/hkid-2018-pass.jsonl",
  set = { ["hkid.check_speed"] = false },
  faults = { { measure = { field = "card.speed", set = 400, from = 1.0, to = 1.3 } } },
  expect = { result = 0, events = { "status:ORTH", "status:COMPLETE" }, absent = { "status:OVERSPEED" } },
}
