-- The HKID 2018 card check: the card is held front-on, flipped to the right, brought back, then flipped to the left and brought back
-- (statuses BEGIN, ORTH, RESET, LEFTDOWN, RESET, COMPLETE;
-- results 0 success, 1 first, 2 exposure, 3 lost, 4 overtime). The steps,
-- alerts and settings are in hkid.lua beside this file; docs/card.md has the
-- measurements and their sign conventions.
--
--   workbench run examples/hkid-2018.lua --input examples/recordings/hkid-2018.avi
--   workbench run examples/hkid-2018.lua --camera /dev/video0 --lang zh-HK
return require("hkid").flow("2018")
