-- LUNA ID runs at most 5 interactions in a session: flow.pick above that is
-- refused before the run starts, as a settings error (exit 2) that names the key.
return {
  {
    name = "random challenge: flow.pick above LUNA ID's 5 interactions is a settings error",
    flow = "../../liveness-random.lua", input = "../../traces/liveness-pass.jsonl",
    set = { ["flow.pick"] = 6 },
    expect = { exit = 2, result = { code = -2, reason = "settings_error" } },
  },
}
