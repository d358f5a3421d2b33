-- Enrolling with an id that is taken: user_exists (2002); the gallery is
-- a copy for this run, so the scenario leaves nothing behind.
return {
  name = "enroll: a taken id fails with user_exists",
  flow = "../../enroll.lua",
  input = "../../recordings/face-blink.avi",
  gallery = "people.jsonl",
  set = { user = "man" },
  expect = { result = { code = 2002, reason = "user_exists" }, events = { "identity:describe", "identity:enroll" } },
}
