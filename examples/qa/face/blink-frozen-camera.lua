-- The camera's picture freezes before the blink: no blink is seen.
return {
  name = "blink: a frozen camera shows no blink",
  flow = "../../liveness-blink.lua",
  input = "../../recordings/face-blink.avi",
  faults = { { freeze = { from = 0.5 } } },
  expect = { result = { reason = "end_of_input" }, absent = { "status:EYES_CLOSED", "status:INTERACTION_SUCCESS" } },
}
