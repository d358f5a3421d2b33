-- The person cancels during the blink (the session is closed at 1 s): the
-- blink and the head turn do not happen, and the run ends USER_CANCEL,
-- still followed by FINISH.
return {
  name = "analytics: a run closed midway is USER_CANCEL, then FINISH",
  flow = "../../liveness.lua",
  input = "../../traces/liveness-pass.jsonl",
  faults = { { close = { at = 1.0 } } },
  expect = {
    result = { reason = "closed" },
    exit = 1,
    events = { "step:blink:failed", "result:closed" },
    analytics = {
      "START", "COMPLETE:SUCCESS", "COMPLETE:SUCCESS", "COMPLETE:FAILURE:USER_CANCEL", "SKIP",
      "FINISH:FAILURE:USER_CANCEL",
    },
  },
}
