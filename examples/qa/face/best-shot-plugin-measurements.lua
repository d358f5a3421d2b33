-- LUNA ID's 1004, 1008, 1009 and 1010 come from measurements no built-in
-- estimator makes: an estimator plugin provides face.liveness, face.mask or
-- face.occlusion, and wb.best_shot rejects the frames. Here the trace of a
-- face held still plays that plugin's part.
local function best_shot(name, measure, result)
  return {
    name = "best shot: " .. name,
    flow = "../../best-shot.lua", input = "../../traces/face-still-photo.jsonl",
    set = { ["best_shot.timeout"] = 3 },
    faults = measure and { { measure = measure } } or nil,
    expect = { result = result },
  }
end

return {
  best_shot("the face alone passes", nil, 0),
  best_shot("a medical mask is 1008", { field = "face.mask", set = "medical" }, { code = 1008, reason = "medical_mask" }),
  best_shot("a mask worn wrong is 1009", { field = "face.mask", set = "misplaced" }, { code = 1009, reason = "mask_misplaced" }),
  best_shot("an occluded face is 1010", { field = "face.occlusion", set = 0.7 }, { code = 1010, reason = "occluded" }),
  best_shot("a face that is not live is 1004", { field = "face.liveness", set = 0.1 }, { code = 1004, reason = "liveness_failed" }),
}
