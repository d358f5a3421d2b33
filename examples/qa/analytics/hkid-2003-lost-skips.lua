-- The 2003 card leaves the frame after its first flip: the two steps done
-- are COMPLETE, the one running is COMPLETE with FAILURE, the two never
-- started are SKIP, and FINISH says why (SCAN_DOCUMENT_LOST, a workbench code).
return {
  name = "analytics: HKID 2003 lost midway, a COMPLETE or SKIP for every step",
  flow = "../../hkid-2003.lua",
  input = "../../traces/hkid-2003-pass.jsonl",
  faults = { { measure = { field = "card.found", set = false, from = 2.0 } } },
  expect = {
    result = { code = 3, reason = "lost" },
    analytics = {
      "START", "COMPLETE:SUCCESS", "IN_PROGRESS:SCAN_DOCUMENT_FRONT_PROCESSED", "COMPLETE:SUCCESS",
      "COMPLETE:FAILURE:SCAN_DOCUMENT_LOST", "SKIP:FAILURE", "SKIP:FAILURE", "FINISH:FAILURE:SCAN_DOCUMENT_LOST",
    },
  },
}
