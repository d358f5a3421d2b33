-- The man of the bundled recording blinks, and his best shot verifies
-- against his enrolled face (from another frame of the recording).
return {
  name = "verify: the enrolled person passes",
  flow = "../../verify.lua",
  input = "../../recordings/face-blink.avi",
  gallery = "people.jsonl",
  set = { user = "man" },
  expect = {
    result = 0,
    events = { "status:INTERACTION_SUCCESS", "status:BEST_SHOT", "identity:verify", "result:passed" },
    match = { user = "man", distance = { max = 0.45 } },
  },
}
