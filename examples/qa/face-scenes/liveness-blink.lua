-- examples/liveness-blink.lua (wb.blink, LUNA ID's blink interaction) on face scenes.
local function scene(name, schedule, result, events, absent)
  return {
    name = "liveness-blink: " .. name,
    flow = "../../liveness-blink.lua",
    input = { synth = "../../synth/" .. schedule },
    expect = { result = result, events = events, absent = absent },
  }
end

return {
  scene("one blink passes", "face-blink.json", 0,
        { "status:EYES_OPENED", "status:EYES_CLOSED", "status:EYES_OPENED_AGAIN", "status:INTERACTION_SUCCESS" }),
  scene("eyes shut for a second are rejected, and the interaction times out", "face-slow-blink.json",
        { code = 1007, reason = "interaction_timeout" },
        { "status:EYES_CLOSED", "status:EYES_OPENED", "status:INTERACTION_FAILED" }, { "status:EYES_OPENED_AGAIN" }),
  scene("a photo held still times out with 1007", "face-photo.json", { code = 1007, reason = "interaction_timeout" },
        { "status:EYES_OPENED", "status:INTERACTION_FAILED" }, { "status:EYES_CLOSED" }),
}
