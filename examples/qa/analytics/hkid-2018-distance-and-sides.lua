-- The card starts too far: Uqudo's SCAN_DOCUMENT_INCORRECT_DISTANCE_DETECTED,
-- then each side of the flip is processed (FRONT, BACK), with a COMPLETE for
-- each of the five steps and the document type of the 2018 card.
return {
  name = "analytics: HKID 2018 too far, then the front and back processed",
  flow = "../../hkid-2018.lua",
  input = "../../traces/hkid-2018-pass.jsonl",
  faults = { { measure = { field = "card.size_ratio", set = 0.2, from = 0, to = 0.6 } } },
  expect = {
    result = 0,
    analytics = {
      "INIT", "VIEW", "START", "IN_PROGRESS:SCAN_DOCUMENT_INCORRECT_DISTANCE_DETECTED", "COMPLETE:SUCCESS",
      "IN_PROGRESS:SCAN_DOCUMENT_FLIP_FIRST_SIDE", "IN_PROGRESS:SCAN_DOCUMENT_FRONT_PROCESSED", "COMPLETE:SUCCESS",
      "COMPLETE:SUCCESS", "IN_PROGRESS:SCAN_DOCUMENT_FLIP_SECOND_SIDE", "IN_PROGRESS:SCAN_DOCUMENT_BACK_PROCESSED",
      "COMPLETE:SUCCESS", "COMPLETE:SUCCESS", "FINISH:SUCCESS",
    },
  },
}
