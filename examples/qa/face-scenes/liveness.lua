-- examples/liveness.lua on face scenes (workbench synth face): it passes on
-- the scene made for it and fails, at the step it should, on the others.
local function scene(name, schedule, result, events, absent)
  return {
    name = "liveness: " .. name,
    flow = "../../liveness.lua",
    input = { synth = "../../synth/" .. schedule },
    expect = { result = result, events = events, absent = absent },
  }
end

return {
  scene("a blink, then a turn to the left, passes", "face-liveness.json", 0,
        { "status:FACE_FOUND", "step:blink:passed", "step:turn left:passed", "status:LIVENESS_PASSED" }),
  scene("eyes shut for a second are not a blink", "face-slow-blink.json", { code = 1, reason = "step_timeout" },
        { "step:face front-on:passed", "step:blink:failed" }, { "step:turn left" }),
  scene("two faces never pass the first step", "face-two.json", { code = 1, reason = "step_timeout" },
        { "step:one face:failed" }, { "status:FACE_FOUND" }),
  scene("a photo held still never blinks", "face-photo.json", { code = 1, reason = "step_timeout" },
        { "status:FACE_FOUND", "step:blink:failed" }),
}
