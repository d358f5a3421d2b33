-- examples/best-shot.lua on face scenes: a face held still gets its best
-- shot (a best shot is about quality, not liveness); two faces never do.
local function scene(name, schedule, result, events)
  return {
    name = "best-shot: " .. name,
    flow = "../../best-shot.lua",
    input = { synth = "../../synth/" .. schedule },
    set = { ["best_shot.timeout"] = 3 },
    expect = { result = result, events = events },
  }
end

return {
  scene("a face held still gets its best shot", "face-photo.json", 0, { "capture:best_shot" }),
  scene("a face that leaves and comes back still gets one", "face-leaves.json", 0, { "capture:best_shot" }),
  scene("two faces are 1003", "face-two.json", { code = 1003, reason = "multiple_faces" }),
}
