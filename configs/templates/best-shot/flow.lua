-- {{name}}: a best-shot flow, made by `workbench new`. The first frame whose
-- face passes every quality check for half a second is kept (a capture
-- named "best_shot"). Change it, then:
--   workbench check {{folder}}/{{name}}.lua
--   workbench test {{folder}}/qa
-- docs/flow-api.md#wbbest_shot lists every check and LUNA ID's codes.
local wb = require "wb"

local S = wb.settings {
  ["{{id}}.max_yaw"] = { type = "number", default = 20, min = 1, max = 90, unit = "deg",
                         doc = "Largest |yaw| of a best shot" },
  ["{{id}}.min_face_px"] = { type = "number", default = 200, min = 20, max = 4000, unit = "px",
                             doc = "Smallest face box side" },
}
local B = S["{{id}}"]

return wb.flow {
  name = "{{name}}",
  description = "A best shot of one face, front-on and well lit",
  time_limit = 15,
  steps = {
    wb.best_shot { name = "best shot", hint = "{{id}}.hold_still", timeout = 10, max_yaw = B.max_yaw,
                   min_face_px = B.min_face_px },
  },
}
