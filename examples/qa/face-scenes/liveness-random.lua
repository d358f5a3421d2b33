-- examples/liveness-random.lua draws three interactions in a random order;
-- the scene does every interaction in turn, again and again, so every seed
-- passes. A photo held still fails the first interaction drawn.
local list = {}
for seed = 1, 4 do
  list[#list + 1] = {
    name = "liveness-random: seed " .. seed .. " passes on a face that does every interaction",
    flow = "../../liveness-random.lua",
    input = { synth = "../../synth/face-every-interaction.json", seed = seed },
    seed = seed,
    expect = { result = 0, events = { "status:INTERACTION_SUCCESS", "status:LIVENESS_PASSED" },
               absent = { "status:INTERACTION_FAILED" } },
  }
end
list[#list + 1] = {
  name = "liveness-random: a photo held still fails with 1007",
  flow = "../../liveness-random.lua",
  input = { synth = "../../synth/face-photo.json" },
  expect = { result = { code = 1007, reason = "interaction_timeout" }, events = { "status:INTERACTION_FAILED" },
             absent = { "status:INTERACTION_SUCCESS" } },
}
-- face.motion's face.pose_jump as a swap of photos gives it: the face jumps
-- on every frame after the first second, so whichever interaction comes
-- first fails with 1018 (a blink once the eyes shut).
list[#list + 1] = {
  name = "liveness-random: a face that jumps (a photo swap) fails with 1018",
  flow = "../../liveness-random.lua",
  input = { synth = "../../synth/face-every-interaction.json", seed = 1 },
  seed = 1,
  faults = { { measure = { field = "face.pose_jump", set = true, from = 1 } } },
  expect = { result = { code = 1018, reason = "pose_jump" }, events = { "status:INTERACTION_FAILED" },
             absent = { "status:INTERACTION_SUCCESS" } },
}
return list
