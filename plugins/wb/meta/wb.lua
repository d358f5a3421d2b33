---@meta wb
-- Definitions of the flow API for the Lua language server (LuaLS): what
-- `require "wb"` returns, the step specs, `ctx` and `m`. Editors use it for
-- completion, hover docs and type checks; workbench never runs it. A flow
-- folder made by `workbench new` has a .luarc.json that points here.
-- docs/flow-api.md is the reference.

---@class wb.Limit
---@field field string
---@field above? number
---@field below? number
---@field min? number
---@field max? number

---@class wb.Step
---@field name? string shown in events
---@field timeout? number seconds; default the setting flow.step_timeout
---@field hint? string message key shown when the step starts
---@field hint_params? table<string, any>
---@field hints? string[] every message key the step may show (for `workbench check`)
---@field needs? string[] the measurements the step reads, such as { "face.yaw" }
---@field fail_code? integer
---@field limits? wb.Limit[] the limits a step that tests fields in its own code holds them to (drawn only)
---@field within_ms? number in a wb.sequence: time after the previous sub-step passed
---@field start? fun(self: wb.Step, ctx: wb.Context)
---@field update? fun(self: wb.Step, m: wb.Measurements, ctx: wb.Context): (boolean|nil), string?, integer?
---@field passed? fun(self: wb.Step, m: wb.Measurements, ctx: wb.Context)

---@class wb.ThresholdSpec: wb.Step
---@field field? string a measurement, such as "face.yaw" (or give value)
---@field value? fun(m: wb.Measurements): number? a value of the frame (list what it reads in needs)
---@field above? number passes when the value crosses above it
---@field below? number passes when the value crosses below it
---@field crossing? boolean false: pass on any frame beyond, without seeing the near side first

---@class wb.RangeSpec: wb.Step
---@field field? string
---@field value? fun(m: wb.Measurements): number?
---@field min? number
---@field max? number
---@field hold_ms? number how long the value must stay inside

---@class wb.SequenceSpec: wb.Step
---@field [integer] wb.Step the sub-steps, in order

---@class wb.WatcherSpec
---@field name? string
---@field when? fun(m: wb.Measurements, ctx: wb.Context): boolean the condition (or field with above or below)
---@field field? string
---@field above? number
---@field below? number
---@field for_ms? number how long the condition must hold
---@field needs? string[]
---@field hint? string
---@field hint_params? table<string, any>
---@field hints? string[]

---@class wb.AlertSpec: wb.WatcherSpec
---@field status string the status raised, such as "FAR"
---@field clear_status? string the status when it clears (default "VALID")

---@class wb.GuardSpec: wb.WatcherSpec
---@field reason string the failure reason, a slug such as "lost"
---@field code? integer

---@class wb.InteractionSpec
---@field name? string
---@field timeout? number seconds (default 5); running out fails with interaction_timeout, 1007
---@field hint? string
---@field hint_params? table<string, any>
---@field hints? string[]
---@field start? fun(self: wb.Step, ctx: wb.Context)
---@field passed? fun(self: wb.Step, m: wb.Measurements, ctx: wb.Context)

---@class wb.BlinkSpec: wb.InteractionSpec
---@field one_eye? boolean either eye closing counts
---@field min_ms? number shortest closed time (default 40)
---@field max_ms? number longest closed time (default 700)
---@field close_ratio? number closed below this share of the open eyes' ratio (default 0.65)
---@field open_ratio? number open again above this share (default 0.72)
---@field baseline_frames? integer frames that set the open eyes' ratio (default 5)

---@class wb.HeadTurnSpec: wb.InteractionSpec
---@field direction "left"|"right" the person's own left or right
---@field start_angle? number starts within this yaw of front-on (default 10)
---@field end_angle? number yaw to reach (default 30)
---@field parallax? boolean|number also require face.parallax above this (true: the setting parallax.threshold); no_parallax, 1019

---@class wb.HeadPitchSpec: wb.InteractionSpec
---@field direction "up"|"down"
---@field start_angle? number (default 5)
---@field end_angle? number (default 20)
---@field parallax? boolean|number also require face.parallax above this (true: the setting parallax.threshold); no_parallax, 1019

---@class wb.PassiveLivenessSpec: wb.InteractionSpec
---@field threshold? number the live probability (face.liveness) to reach (default 0.5, LUNA ID's)
---@field frames? integer frames with an estimate averaged before judging (default 1)

---@class wb.BestShotSpec: wb.InteractionSpec
---@field face_time? number seconds every check must pass before the shot (default 0.5)
---@field start_delay? number
---@field min_face_px? number
---@field border_px? number
---@field border_left? number
---@field border_top? number
---@field border_right? number
---@field border_bottom? number
---@field max_yaw? number
---@field max_pitch? number
---@field max_roll? number
---@field accept_eyes_closed? boolean
---@field accept_multiple? boolean
---@field eyes_closed_above? number
---@field min_quality? number
---@field quality? table<string, number> least quality score per name (blur, darkness, lightness, illumination, specularity)
---@field min_liveness? number
---@field accept_mask? boolean
---@field accept_occluded? boolean
---@field max_occlusion? number
---@field describe? string also describe the best frame's face under this name
---@field wait_for_command? boolean start the search only on the command "best_shot" (POST /api/best-shot)

---@class wb.DescribeFaceSpec: wb.Step
---@field as? string the name the descriptor is kept under (default "live")
---@field source? "face"|"portrait"

---@class wb.GalleryStepSpec: wb.Step
---@field user? string
---@field name? string
---@field group? string
---@field details? table
---@field faces? string[]
---@field face? string
---@field top? integer
---@field identified_hint? string

---@class wb.FlowSpec
---@field name string
---@field description? string
---@field steps (wb.Step|fun(m: wb.Measurements, ctx: wb.Context): boolean?)[]
---@field time_limit? number seconds (the setting flow.time_limit)
---@field step_timeout? number seconds (flow.step_timeout)
---@field delay? number seconds between steps (flow.step_delay)
---@field random? { pick?: integer } steps in a random order, maybe only some of them
---@field seed? integer
---@field codes? table<string, integer> result reason → code
---@field results? table<string, string> result reason → message key
---@field messages? string[] message keys the flow shows that check cannot see
---@field watch? table[] wb.alert and wb.guard watchers
---@field on_finish? fun(flow: table, ctx: wb.Context, result: { success: boolean, reason: string, code: integer })
---@field score? fun(flow: table, ctx: wb.Context, result: { success: boolean, reason: string, code: integer }): number? eval's score

---@class wb.Context
---@field started_at number the t at which the running step started
---@field flow_started_at number the t at which the flow started
---@field elapsed number m.t - started_at on the current frame
---@field log wb.Log
local Context = {} -- luacheck: ignore 241 (a definition: never used)
---Shows a message; the same key and params are shown once in a row.
---@param key string
---@param params? table<string, any>
function Context.hint(key, params) end
---Forgets the hint on screen, so that the next hint shows again.
function Context.clear_hint() end
---A watcher's condition started (wb.alert, wb.guard use it).
---@param watcher table
function Context.raise_alert(watcher) end
---A watcher's condition ended.
---@param watcher table
function Context.clear_alert(watcher) end
---The step's own hint, under the alerts.
---@param key string
---@param params? table<string, any>
function Context.step_hint(key, params) end
---Emits a status event.
---@param name string such as "FACE_FOUND"
---@param fields? table<string, any>
function Context.status(name, fields) end
---True once for each command sent since it was last taken ("best_shot": POST /api/best-shot).
---@param name string
---@return boolean
function Context.command(name) end
---Emits an event of the flow's own type ("flow.<type>").
---@param type string
---@param fields? table<string, any>
function Context.event(type, fields) end
---Keeps this frame's images under a name; returns the files, or nil.
---@param name string
---@return table?
function Context.capture(name) end
---Emits an intermediate result; the flow goes on.
---@param reason string
---@param code integer
---@param fields? table<string, any>
function Context.intermediate(reason, code, fields) end
---The localized text of a message key.
---@param key string
---@param params? table<string, any>
---@return string
function Context.text(key, params) end
---Describes this frame's face (or the card's portrait) and keeps it under a name.
---@param name string
---@param source? "face"|"portrait"
---@return { found: boolean, error?: string, message?: string }
function Context.describe_face(name, source) end
---Asks the gallery: "enroll", "add_faces", "verify", "identify" or "compare".
---@param operation string
---@param fields table
---@return table
function Context.gallery(operation, fields) end

---@class wb.FaceMeasurements
---@field count integer faces in the frame
---@field box { x: number, y: number, w: number, h: number } pixels of the frame as captured
---@field yaw number degrees, positive turned to the person's left
---@field pitch number degrees, positive looking up
---@field roll number degrees
---@field blink_left number eyeBlinkLeft blendshape, 1 closed
---@field blink_right number
---@field ear_left number eye aspect ratio
---@field ear_right number
---@field size number the box's larger side over the frame's shorter side
---@field border_distance number
---@field eye_distance number pixels
---@field smile number
---@field mouth_open number
---@field quality { blur: number, darkness: number, lightness: number, illumination: number, specularity: number }
---@field faces wb.FaceMeasurements[] every face, largest first

---@class wb.CardMeasurements
---@field found boolean
---@field corners { x: number, y: number }[]
---@field width_ratio number
---@field size_ratio number
---@field focal_length number
---@field distance_mm number
---@field tilt_x number degrees
---@field tilt_y number degrees
---@field roll number degrees
---@field speed number degrees per second
---@field glare number
---@field blur number
---@field confidence number

---@class wb.Measurements
---@field t number seconds, from the input's clock
---@field frame integer
---@field face? wb.FaceMeasurements
---@field card? wb.CardMeasurements
---@field quality? { blur: number, darkness: number, lightness: number, illumination: number, specularity: number }
---@field image? { width: integer, height: integer }
---@field [string] any measurements of plugins

---@class wb.Log
---@overload fun(...: any)
---@field trace fun(...: any)
---@field debug fun(...: any)
---@field info fun(...: any)
---@field warn fun(...: any)
---@field warning fun(...: any)
---@field error fun(...: any)

---@class wb
---@field log wb.Log logs through the host: wb.log("text"), wb.log.debug(...)
local wb = {}

---The localized text of a message key, with {param} substituted.
---@param key string
---@param params? table<string, any>
---@return string
function wb.text(key, params) end

---Declares the flow's settings and sets values of existing ones; returns every effective setting as a nested table.
---@param spec? table<string, any>
---@param level? integer whose settings they are, as for error(): 1 this file, 2 the caller of this function
---@return table
function wb.settings(spec, level) end

---The effective value of one setting, by its dotted name.
---@param key string
---@return any
function wb.setting(key) end

---Builds a flow.
---@param spec wb.FlowSpec
---@return table
function wb.flow(spec) end

---A step from update = function(self, m, ctx), or from a plain function of (m, ctx), named or not.
---@param spec wb.Step|string|fun(m: wb.Measurements, ctx: wb.Context): boolean?
---@param fn? fun(m: wb.Measurements, ctx: wb.Context): boolean?
---@return wb.Step
function wb.step(spec, fn) end

---Passes when a measurement crosses a value.
---@param spec wb.ThresholdSpec
---@return wb.Step
function wb.threshold(spec) end

---Passes once a measurement has stayed inside [min, max] for hold_ms.
---@param spec wb.RangeSpec
---@return wb.Step
function wb.range(spec) end

---Sub-steps in order, each within its within_ms of the one before.
---@param spec wb.SequenceSpec
---@return wb.Step
function wb.sequence(spec) end

---A getter for a dotted field name: wb.field("face.yaw")(m) is m.face.yaw, or nil.
---@param path string
---@return fun(m: wb.Measurements): any
function wb.field(path) end

---A status and hint while a condition holds (listed in the flow's watch).
---@param spec wb.AlertSpec
---@return table
function wb.alert(spec) end

---Ends the flow when a condition has held for for_ms (listed in the flow's watch).
---@param spec wb.GuardSpec
---@return table
function wb.guard(spec) end

---LUNA ID's blink interaction.
---@param spec? wb.BlinkSpec
---@return wb.Step
function wb.blink(spec) end

---LUNA ID's head turn interaction (yaw).
---@param spec wb.HeadTurnSpec
---@return wb.Step
function wb.head_turn(spec) end

---LUNA ID's look up or down interaction (pitch).
---@param spec wb.HeadPitchSpec
---@return wb.Step
function wb.head_pitch(spec) end

---The face's live probability (face.liveness, from a model the user brings or a liveness service)
---against a threshold: below it liveness_failed (1004); no estimate within the timeout, or a
---service that gave no answer (face.liveness_error), liveness_unavailable (1020).
---@param spec? wb.PassiveLivenessSpec
---@return wb.Step
function wb.passive_liveness(spec) end

---LUNA ID's best shot: the first frame that passes every check for face_time.
---@param spec? wb.BestShotSpec
---@return wb.Step
function wb.best_shot(spec) end

---Describes this frame's face (or the card's portrait) under a name.
---@param spec? wb.DescribeFaceSpec
---@return wb.Step
function wb.describe_face(spec) end

---Enrolls described faces into the gallery.
---@param spec wb.GalleryStepSpec
---@return wb.Step
function wb.enroll(spec) end

---Adds described faces to an enrolled user.
---@param spec wb.GalleryStepSpec
---@return wb.Step
function wb.add_faces(spec) end

---Verifies a described face against a user.
---@param spec wb.GalleryStepSpec
---@return wb.Step
function wb.verify(spec) end

---Finds the user a described face belongs to.
---@param spec wb.GalleryStepSpec
---@return wb.Step
function wb.identify(spec) end

---Compares two described faces.
---@param spec wb.GalleryStepSpec
---@return wb.Step
function wb.compare_faces(spec) end

return wb
