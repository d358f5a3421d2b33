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
  -- The variant with parallax = true. A face scene has no face.parallax of
  -- its own: the turn looks flat unless a fault gives it the parallax a real
  -- head shows (docs/liveness.md).
  {
    name = "liveness with parallax: a turn as flat as a photo fails with 1019",
    flow = "../../liveness-parallax.lua",
    -- Past its angle without parallax the turn waits for more, until its timeout.
    input = { synth = "../../synth/face-turn-held.json" },
    expect = { result = { code = 1019, reason = "no_parallax" }, events = { "step:blink:passed", "step:turn left:failed" },
               absent = { "status:LIVENESS_PASSED" } },
  },
  {
    name = "liveness with parallax: a turn with a real head's parallax passes",
    flow = "../../liveness-parallax.lua",
    input = { synth = "../../synth/face-liveness.json" },
    faults = { { measure = { field = "face.parallax", set = 0.07, from = 2.8, to = 3.2 } } },
    expect = { result = 0, events = { "step:turn left:passed", "status:LIVENESS_PASSED" } },
  },
  {
    name = "liveness with parallax: a face that jumps during the turn fails with 1018",
    flow = "../../liveness-parallax.lua",
    input = { synth = "../../synth/face-liveness.json" },
    faults = { { measure = { field = "face.parallax", set = 0.07, from = 2.8, to = 3.2 } },
               { measure = { field = "face.pose_jump", set = true, from = 2.9, to = 2.95 } } },
    expect = { result = { code = 1018, reason = "pose_jump" }, events = { "step:turn left:failed" } },
  },
}
