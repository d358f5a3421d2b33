-- The same live man, claiming to be someone else: face_no_match (2001),
-- with a distance well beyond the threshold.
return {
  name = "verify: another person's id fails with face_no_match",
  flow = "../../verify.lua",
  input = "../../recordings/face-blink.avi",
  gallery = "people.jsonl",
  set = { user = "obama" },
  expect = {
    result = { code = 2001, reason = "face_no_match" },
    match = { match = false, distance = { min = 0.7 } },
  },
}
