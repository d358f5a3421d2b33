-- LUNA ID's "record only with a face" (Android: ignoreVideoWithoutFace,
-- iOS: saveOnlyFaceVideo): the whole session is kept when a face was seen
-- in any frame, and nothing is kept otherwise. The face estimator runs for
-- the policy even when the flow reads nothing of the face.
return {
  {
    name = "recording: with-face keeps the whole session when a face was seen",
    flow = "../../image-quality.lua",
    input = "../../recordings/face-blink.avi",
    record = "with-face",
    expect = { result = 0, recording = { kept = true, frames = "all" } },
  },
  {
    name = "recording: ignore-without-face keeps nothing when no face was ever seen",
    flow = "../../liveness-blink.lua",
    input = "../../recordings/face-blink.avi",
    -- A hand over the whole lens from the first frame: no face, ever.
    faults = { { occlude = { x = 0, y = 0, w = 1, h = 1 } } },
    record = "ignore-without-face",
    expect = { result = { success = false }, recording = "discarded" },
  },
}
