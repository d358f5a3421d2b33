-- examples/oneshot-liveness.lua on a face held still in a face scene. The
-- scene has no face.liveness of its own: a fault gives it what a
-- presentation-attack model would say (docs/liveness.md), live or a print.
local function scene(name, liveness, result, events, set)
  return {
    name = "oneshot-liveness: " .. name,
    flow = "../../oneshot-liveness.lua",
    input = { synth = "../../synth/face-photo.json" },
    faults = liveness and { { measure = { field = "face.liveness", set = liveness } } } or nil,
    set = set,
    expect = { result = result, events = events },
  }
end

return {
  scene("a live face passes on its best shot", 0.92, 0,
        { "step:best shot:passed", "status:LIVENESS_ESTIMATED", "status:LIVENESS_PASSED" }),
  scene("a print is rejected frame after frame, then fails with 1004", 0.12, { code = 1004, reason = "liveness_failed" },
        { "status:FRAME_REJECTED", "status:LIVENESS_FAILED" }, { ["oneshot.timeout"] = 3 }),
  scene("no estimate on the best shot is 1020", nil, { code = 1020, reason = "liveness_unavailable" },
        { "step:best shot:passed", "step:liveness:failed" }),
}
