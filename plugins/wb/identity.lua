-- Who it is: steps that describe faces and ask the gallery (docs/gallery.md).
-- `require "wb"` exposes them as wb.describe_face, wb.enroll, wb.add_faces,
-- wb.verify, wb.identify and wb.compare_faces.
--
-- A face is described (dlib's 128-d descriptor) and kept under a name:
-- by wb.describe_face, or by wb.best_shot { describe = "name" } on its best
-- frame. The gallery steps then name those faces. Each ends on its first
-- frame: it passes, or fails with the gallery's error name as its reason
-- (user_exists, user_not_found, group_not_found, gallery_unavailable, ...)
-- or with "face_no_match" when the face is not the person's. Every call is
-- an `identity` event with the distances. Map reasons to codes with the
-- flow's `codes`, and give each a `result.<reason>` message.

local native = require "wb.native"
local problems = require "wb.problems"

local identity = {}

local with_common_fields = require("wb.face_step_fields").with

local function check(kind, spec, allowed, where)
  problems.check_fields(kind, spec, with_common_fields(allowed), where)
end

local function base(spec, default_name)
  local hints = {}
  if spec.hint then hints[#hints + 1] = spec.hint end
  for _, key in ipairs(spec.hints or {}) do hints[#hints + 1] = key end
  return {
    name = spec.name or default_name, hint = spec.hint, hint_params = spec.hint_params, passed = spec.passed,
    start = spec.start, timeout = spec.timeout, hints = hints, needs = { "face.descriptor" },
  }
end


-- describe_face: waits for a frame with a face (source "face") or a card
-- portrait (source "portrait") and describes it under `as`.
--   wb.describe_face { as = "live" }
--   wb.describe_face { as = "card", source = "portrait", timeout = 5 }
function identity.describe_face(spec)
  spec = spec or {}
  local where = native.where(2)
  check("wb.describe_face", spec, { as = "string", source = "string" }, where)
  local source = spec.source or "face"
  if source ~= "face" and source ~= "portrait" then
    problems.add(where .. "wb.describe_face: source is \"face\" or \"portrait\", not \"" .. tostring(source) .. "\"")
  end
  local step = base(spec, "describe " .. (spec.as or "face"))
  step.needs[#step.needs + 1] = source == "portrait" and "card.found" or "face.count"
  local last
  function step.update(_, m, ctx)
    local present
    if source == "portrait" then present = m.card ~= nil and m.card.found == true
    else present = m.face ~= nil and (m.face.count or 0) > 0 end
    if not present then return nil end
    last = ctx.describe_face(spec.as or "live", source)
    if last.found then return true end
    return nil
  end
  return step
end

-- The step of one gallery call, made on the step's first frame.
local function gallery_step(kind, spec, allowed, default_name, call)
  local where = native.where(3)
  check(kind, spec, allowed, where)
  local step = base(spec, default_name)
  if spec.identified_hint then step.hints[#step.hints + 1] = spec.identified_hint end
  function step.update(_, _, ctx)
    local answer = call(ctx)
    if answer.error then return false, answer.error end
    if answer.match == false then return false, "face_no_match" end
    return true
  end
  return step
end

-- enroll: a new user with the named faces (HyperSecure's REGISTER; at most 5).
--   wb.enroll { user = S.user, name = S.name, group = S.group, faces = { "best_shot" } }
function identity.enroll(spec)
  spec = spec or {}
  return gallery_step("wb.enroll", spec,
    { user = "string", name = "string", group = "string", details = "table", faces = "table" }, "enroll",
    function(ctx)
      local group = spec.group
      if group == "" then group = nil end
      return ctx.gallery("enroll", {
        user = spec.user, name = spec.name ~= "" and spec.name or nil, group = group, details = spec.details,
        faces = spec.faces or { "best_shot" },
      })
    end)
end

-- add_faces: more faces of an existing user (FACE_ADD).
--   wb.add_faces { user = S.user, faces = { "best_shot" } }
function identity.add_faces(spec)
  spec = spec or {}
  return gallery_step("wb.add_faces", spec, { user = "string", faces = "table" }, "add faces", function(ctx)
    return ctx.gallery("add_faces", { user = spec.user, faces = spec.faces or { "best_shot" } })
  end)
end

-- verify: is the named face this user? (1:1, VERIFICATION) Fails with
-- "face_no_match" when the nearest of the user's faces is too far.
--   wb.verify { user = S.user, face = "best_shot" }
function identity.verify(spec)
  spec = spec or {}
  return gallery_step("wb.verify", spec, { user = "string", face = "string" }, "verify", function(ctx)
    return ctx.gallery("verify", { user = spec.user, face = spec.face or "best_shot" })
  end)
end

-- identify: who in the group is the named face? (1:N, RECOGNITION) Passes
-- when the nearest user matches; emits IDENTIFIED { user, distance, candidates }
-- and shows `identified_hint` (with { user = id }) when given.
--   wb.identify { group = S.group, top = 3, face = "best_shot", identified_hint = "identity.identified" }
function identity.identify(spec)
  spec = spec or {}
  return gallery_step("wb.identify", spec,
    { group = "string", top = "number", face = "string", identified_hint = "string" }, "identify",
    function(ctx)
      local group = spec.group
      if group == "" then group = nil end
      local answer = ctx.gallery("identify", { group = group, top = spec.top or 3, face = spec.face or "best_shot" })
      if answer.match then
        local best = answer.candidates[1]
        ctx.status("IDENTIFIED", { user = answer.user, distance = best and best.distance, candidates = answer.candidates })
        if spec.identified_hint then ctx.hint(spec.identified_hint, { user = answer.user }) end
      end
      return answer
    end)
end

-- compare_faces: are two described faces the same person? Fails with
-- "face_no_match" when not (Uqudo's FACE_NO_MATCH).
--   wb.compare_faces { faces = { "live", "card" } }
function identity.compare_faces(spec)
  spec = spec or {}
  return gallery_step("wb.compare_faces", spec, { faces = "table" }, "compare faces", function(ctx)
    return ctx.gallery("compare", { faces = spec.faces or { "live", "card" } })
  end)
end

return identity
