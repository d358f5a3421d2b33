-- examples/liveness-strict.lua, a variant of liveness.lua in a few lines:
-- a wider turn, then a second blink.
return {
  {
    name = "liveness-strict: a face that blinks again after the turn passes",
    flow = "../../liveness-strict.lua",
    input = { synth = "../../synth/face-every-interaction.json" },
    expect = { result = 0, events = { "step:turn left:passed", "step:blink again:passed", "status:LIVENESS_PASSED" } },
  },
  {
    name = "liveness-strict: one blink is not enough",
    flow = "../../liveness-strict.lua",
    input = { synth = "../../synth/face-liveness.json" },
    expect = { result = { reason = "end_of_input" }, events = { "step:turn left:passed", "step:blink again:failed" } },
  },
}
