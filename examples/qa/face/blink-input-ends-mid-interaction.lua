-- The recording ends while the blink interaction is still waiting: as LUNA
-- ID does, the interaction fails (INTERACTION_FAILED, then
-- INTERACTION_ENDED) before the result, which is end_of_input.
-- The trace is cut after 2 s: every frame from 60 on is dropped.
local cut = {}
for frame = 60, 1000 do cut[#cut + 1] = frame end

return {
  name = "blink: the input ends in the middle of the interaction",
  flow = "../../liveness-blink.lua",
  input = "../../traces/face-still-photo.jsonl",
  faults = { { drop_frames = cut } },
  expect = {
    result = { reason = "end_of_input" },
    events = { "status:INTERACTION_STARTED", "status:INTERACTION_FAILED", "status:INTERACTION_ENDED",
               "step:blink:failed", "result:end_of_input" },
    absent = { "status:INTERACTION_SUCCESS" },
  },
}
