-- 1:N in the staff group: the nearest is the man, the next is another
-- member, far beyond the threshold.
return {
  name = "identify: the man is found among the staff",
  flow = "../../identify.lua",
  input = "../../recordings/face-blink.avi",
  gallery = "people.jsonl",
  set = { group = "staff", ["identify.top"] = 2 },
  expect = {
    result = 0,
    events = { "identity:identify", "status:IDENTIFIED" },
    match = "man",
  },
}
