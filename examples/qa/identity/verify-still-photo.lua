-- A photo of the enrolled man held to the camera (the recording frozen on
-- its first frame): no blink, so the face is never compared.
return {
  name = "verify: a still photo of the person never reaches the comparison",
  flow = "../../verify.lua",
  input = "../../recordings/face-blink.avi",
  gallery = "people.jsonl",
  set = { user = "man", ["liveness.interaction_timeout"] = 2 },
  faults = { { freeze = { from = 0.1 } } },
  expect = {
    result = { code = 1007, reason = "interaction_timeout" },
    absent = { "identity:verify", "status:BEST_SHOT" },
  },
}
