-- An id the gallery does not have: user_not_found (2003), not a crash.
return {
  name = "verify: an unknown id fails with user_not_found",
  flow = "../../verify.lua",
  input = "../../recordings/face-blink.avi",
  gallery = "people.jsonl",
  set = { user = "nobody" },
  expect = { result = { code = 2003, reason = "user_not_found" }, exit = 1 },
}
