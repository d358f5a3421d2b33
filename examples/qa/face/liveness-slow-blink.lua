-- Eyes closed for a whole second are not a blink.
return {
  name = "liveness: a slow blink times out",
  flow = "../../liveness.lua",
  input = "../../traces/liveness-slow-blink.jsonl",
  expect = { result = { code = 1, reason = "step_timeout" }, events = { "step:blink:failed" }, absent = { "step:turn left" } },
}
