-- A variant of examples/liveness.lua whose turn must also look like a real
-- head's: wb.head_turn with parallax = true fails a face that turns as flat
-- as a photo (face.parallax below parallax.threshold: no_parallax, 1019) or
-- jumps (face.pose_jump: pose_jump, 1018). docs/liveness.md says what the
-- cue measures and what it does not catch.
--
--   workbench run examples/liveness-parallax.lua --input examples/recordings/face-blink.avi
return require("liveness").variant {
  name = "liveness-parallax",
  description = "Face front-on, blink once, turn the head to the left with the parallax of a real head",
  parallax = true,
}
