-- The HKID flows on rendered scenes: a card drawn over a cluttered table,
-- through a pinhole camera, measured by the card estimator (not a trace).
-- Each scene is rendered once (640×360, 30 fps) and kept in a cache.
local function scene(name) return { synth = "../../synth/" .. name .. ".json" } end

return {
  {
    name = "rendered: HKID 2018 right, back, left, back passes",
    flow = "../../hkid-2018.lua", input = scene "hkid-2018-pass",
    expect = { result = 0, events = { "status:BEGIN", "status:ORTH", "intermediate:first", "status:RESET",
                                       "status:LEFTDOWN", "status:RESET", "status:COMPLETE" } },
  },
  {
    name = "rendered: HKID 2003 up, back, down, back passes",
    flow = "../../hkid-2003.lua", input = scene "hkid-2003-pass",
    expect = { result = 0, events = { "status:BEGIN", "status:ORTH", "intermediate:first", "status:LEFTDOWN", "status:COMPLETE" } },
  },
  {
    name = "rendered: a card held still never completes (overtime)",
    flow = "../../hkid-2018.lua", input = scene "static", set = { ["hkid.overtime"] = 4 },
    expect = { result = { code = 4, reason = "overtime" }, absent = { "intermediate:first", "status:COMPLETE" } },
  },
  {
    name = "rendered: a flip the wrong way does not count",
    flow = "../../hkid-2018.lua", input = scene "hkid-2018-wrong-way", set = { ["hkid.overtime"] = 6.5 },
    expect = { result = 4, events = { "status:BEGIN", "status:ORTH" }, absent = { "intermediate:first", "status:COMPLETE" } },
  },
  {
    name = "rendered: the card leaves the frame (lost)",
    flow = "../../hkid-2018.lua", input = scene "hkid-2018-lost",
    expect = { result = { code = 3, reason = "lost" }, events = { "intermediate:first", "result:lost" } },
  },
  {
    name = "rendered: glare that stays ends with exposure",
    flow = "../../hkid-2018.lua", input = scene "hkid-2018-glare",
    expect = { result = { code = 2, reason = "exposure" }, events = { "hint:idcard_operation_title6", "result:exposure" } },
  },
  {
    name = "rendered: too far, then VALID, then a pass",
    flow = "../../hkid-2018.lua", input = scene "hkid-2018-far",
    expect = { result = 0, events = { "status:BEGIN", "status:FAR", "status:VALID", "status:COMPLETE" } },
  },
  {
    name = "rendered: flips too fast raise OVERSPEED",
    flow = "../../hkid-2018.lua", input = scene "hkid-2018-too-fast",
    expect = { events = { "status:ORTH", "status:OVERSPEED", "status:VALID" } },
  },
  {
    -- FAR and NEAR read the card's size with the tilt taken out (card.size_ratio):
    -- a flip at an unchanged distance shrinks its projected width below the
    -- FAR limit, and must not raise FAR.
    name = "rendered: a flip at an unchanged distance near the FAR limit raises no FAR",
    flow = "../../hkid-2018.lua", input = scene "hkid-2018-flip-at-far-limit",
    expect = { result = 0, events = { "status:BEGIN", "status:ORTH", "intermediate:first", "status:LEFTDOWN", "status:COMPLETE" },
               absent = { "status:FAR", "status:VALID" } },
  },
}
