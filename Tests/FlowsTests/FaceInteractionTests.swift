import Flows
import FlowsTesting
import Measurements
import Reporting
import TestSupport
import Testing

/// One face as the face estimator reports it.
private func face(
  count: Int64 = 1, yaw: Double = 0, pitch: Double = 0, roll: Double = 0, earLeft: Double = 0.33,
  earRight: Double = 0.33, blink: Double = 0.05,
  box: (x: Double, y: Double, w: Double, h: Double) = (420, 160, 300, 360),
  quality: [String: Double] = [:], extra: [String: MeasurementValue] = [:]
) -> [String: MeasurementValue] {
  var values: [String: MeasurementValue] = [
    "face.count": .integer(count), "image.width": .integer(1280), "image.height": .integer(720),
  ]
  guard count > 0 else { return values }
  values["face.yaw"] = .number(yaw)
  values["face.pitch"] = .number(pitch)
  values["face.roll"] = .number(roll)
  values["face.ear_left"] = .number(earLeft)
  values["face.ear_right"] = .number(earRight)
  values["face.blink_left"] = .number(blink)
  values["face.blink_right"] = .number(blink)
  values["face.box.x"] = .number(box.x)
  values["face.box.y"] = .number(box.y)
  values["face.box.w"] = .number(box.w)
  values["face.box.h"] = .number(box.h)
  for kind in ["blur", "darkness", "lightness", "illumination", "specularity"] {
    values["face.quality." + kind] = .number(quality[kind] ?? 0.9)
  }
  values.merge(extra) { _, new in new }
  return values
}

private func example(_ name: String, set: [String] = [], seed: Int64? = nil) -> FlowOptions {
  var options = FlowOptions(
    flowPath: packageRootPath + "/examples/\(name).lua", settingDeclarations: EstimatorSettingsDouble.declarations)
  options.assignments = set
  options.seed = seed
  return options
}

private func runExample(_ script: FrameScript, _ options: FlowOptions) throws -> RunRecord {
  let flow = try FlowLoader.load(options, logger: testLogger)
  let sink = InMemoryEventSink()
  let schema = MeasurementSchema()
  let runner = FlowRunner(flow: flow, sink: sink, schema: schema)
  for frame in script.build(into: schema) {
    if !runner.process(frame) { break }
  }
  runner.finishAtEndOfInput()
  return RunRecord(events: sink.events, result: runner.result, runner: runner)
}

private func interactionStatuses(_ record: RunRecord) -> [String] {
  record.events("status").map { event in
    let name = event["status"]?.stringValue ?? "?"
    if let kind = event["interaction"]?.stringValue { return "\(name):\(kind)" }
    return name
  }
}

@Suite("Face interactions: blink")
struct BlinkInteractionTests {
  @Test("a blink: opened, closed, opened again, with the interaction statuses")
  func blinkPasses() throws {
    var script = FrameScript()
    script.add(10) { _ in face() }
    script.add(4) { _ in face(earLeft: 0.08, earRight: 0.09) }
    script.add(5) { _ in face() }
    let record = try runExample(script, example("liveness-blink"))
    #expect(record.result?.success == true)
    #expect(
      interactionStatuses(record) == [
        "INTERACTION_STARTED:blink", "EYES_OPENED", "EYES_CLOSED", "EYES_OPENED_AGAIN", "INTERACTION_SUCCESS:blink",
        "INTERACTION_ENDED:blink", "LIVENESS_PASSED",
      ], "\(interactionStatuses(record))")
    let again = try #require(record.events("status").first { $0["status"] == "EYES_OPENED_AGAIN" })
    #expect(again["closed_ms"] == 133)
    // LUNA ID's 1006, NEED_TO_BLINK, is the request for a blink.
    let started = try #require(record.events("status").first { $0["status"] == "INTERACTION_STARTED" })
    #expect(started["code"] == 1006)
  }

  @Test("narrow eyes or glasses: the baseline is the person's own, so a fixed 0.2 would never see them open")
  func narrowEyes() throws {
    var script = FrameScript()
    script.add(10) { _ in face(earLeft: 0.17, earRight: 0.16) }
    script.add(4) { _ in face(earLeft: 0.07, earRight: 0.07) }
    script.add(5) { _ in face(earLeft: 0.17, earRight: 0.16) }
    let record = try runExample(script, example("liveness-blink"))
    #expect(record.result?.success == true, "\(interactionStatuses(record))")
  }

  @Test("eyes held shut longer than max_ms are not a blink; the interaction times out with 1007")
  func slowBlinkTimesOut() throws {
    var script = FrameScript()
    script.add(10) { _ in face() }
    script.add(45) { _ in face(earLeft: 0.08, earRight: 0.08) }  // 1.5 s
    script.add(150) { _ in face() }
    let record = try runExample(script, example("liveness-blink"))
    #expect(record.result?.success == false)
    #expect(record.result?.reason == "interaction_timeout")
    #expect(record.result?.code == 1007)
    let statuses = interactionStatuses(record)
    #expect(statuses.contains("EYES_CLOSED"))
    #expect(!statuses.contains("EYES_OPENED_AGAIN"))
    #expect(statuses.suffix(3) == ["INTERACTION_FAILED:blink", "INTERACTION_ENDED:blink", "LIVENESS_FAILED"])
    let failed = try #require(record.events("step").last)
    #expect(abs((failed.t) - (5.0 + 1.0 / 30)) < 0.02, "timed out at \(failed.t)")
  }

  @Test("a still photo (eye openness that only jitters) never passes")
  func stillPhotoNeverBlinks() throws {
    var script = FrameScript()
    script.add(200) { i in face(earLeft: 0.30 + 0.01 * Double(i % 3), earRight: 0.31 - 0.01 * Double(i % 2)) }
    let record = try runExample(script, example("liveness-blink"))
    #expect(record.result?.code == 1007)
    #expect(!interactionStatuses(record).contains("EYES_CLOSED"))
  }

  @Test("one_eye accepts a wink; without it both eyes must close")
  func oneEye() throws {
    let source = """
      local wb = require "wb"
      return wb.flow { name = "wink", step_timeout = 0, steps = { wb.blink { one_eye = %@, timeout = 2 } } }
      """
    var script = FrameScript()
    script.add(10) { _ in face() }
    script.add(4) { _ in face(earLeft: 0.08, earRight: 0.32) }
    script.add(70) { _ in face() }
    let wink = try run(FlowFixture(source.replacingOccurrences(of: "%@", with: "true")), script)
    #expect(wink.result?.success == true)
    let both = try run(FlowFixture(source.replacingOccurrences(of: "%@", with: "false")), script)
    #expect(both.result?.success == false)
    #expect(both.result?.code == 1007)
  }

  @Test("without a face the interaction waits with the face hints")
  func noFace() throws {
    var script = FrameScript()
    script.add(5) { _ in face(count: 0) }
    script.add(3) { _ in face(count: 2) }
    script.add(10) { _ in face() }
    script.add(4) { _ in face(earLeft: 0.08, earRight: 0.08) }
    script.add(3) { _ in face() }
    let record = try runExample(script, example("liveness-blink"))
    #expect(record.result?.success == true)
    let hints = record.events("hint").compactMap { $0["key"]?.stringValue }
    #expect(hints == ["face.blink", "face.not_found", "face.multiple", "face.blink"], "\(hints)")
  }
}

@Suite("Face interactions: head turn and pitch")
struct HeadMoveTests {
  private func single(_ step: String) throws -> FlowFixture {
    try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "move", step_timeout = 0, steps = { \(step) } }
      """)
  }

  @Test("turn left: from front-on to 30°; turn right is the other sign")
  func turns() throws {
    var script = FrameScript()
    script.add(5) { _ in face() }
    script.add(20) { i in face(yaw: Double(i) * 2) }
    let left = try run(try single(#"wb.head_turn { direction = "left" }"#), script)
    #expect(left.result?.success == true)
    #expect(left.events("step").last?.frame == 15)  // yaw = 2 × frame: 30 at frame 15
    script.add(30) { _ in face(yaw: 40) }
    let right = try run(try single(#"wb.head_turn { direction = "right", timeout = 1 }"#), script)
    #expect(right.result?.success == false)
    #expect(right.result?.code == 1007)
  }

  @Test("a head already turned must come back to front-on first")
  func mustStartFrontOn() throws {
    var script = FrameScript()
    script.add(10) { _ in face(yaw: 35) }
    script.add(5) { _ in face(yaw: 2) }
    script.add(3) { _ in face(yaw: 35) }
    let record = try run(try single(#"wb.head_turn { direction = "left" }"#), script)
    #expect(record.result?.success == true)
    #expect(record.events("step").last?.frame == 15)
    #expect(record.events("hint").contains { $0["key"] == "face.look_straight" })
  }

  @Test("a face that jumps (face.pose_jump) fails the turn with 1018 on that frame")
  func jumpFails() throws {
    var script = FrameScript()
    script.add(5) { _ in face() }
    script.add(20) { i in face(yaw: Double(i) * 2, extra: ["face.pose_jump": .bool(i == 8)]) }
    let record = try run(try single(#"wb.head_turn { direction = "left" }"#), script)
    #expect(record.result?.code == 1018)
    #expect(record.result?.reason == "pose_jump")
    #expect(record.events("step").last?.frame == 8)
  }

  @Test("with parallax the turn passes once it has shown enough; past its angle without, it times out with 1019")
  func parallax() throws {
    var script = FrameScript()
    script.add(5) { _ in face() }
    script.add(20) { i in face(yaw: Double(i) * 2, extra: i == 10 ? ["face.parallax": .number(0.06)] : [:]) }
    script.add(40) { _ in face(yaw: 40) }
    let real = try run(try single(#"wb.head_turn { direction = "left", parallax = 0.05 }"#), script)
    #expect(real.result?.success == true)
    #expect(real.events("step").last?.frame == 15)
    let flat = try run(try single(#"wb.head_turn { direction = "left", parallax = 0.07, timeout = 1.5 }"#), script)
    #expect(flat.result?.code == 1019)
    #expect(flat.result?.reason == "no_parallax")
    #expect(throws: (any Error).self) {
      try run(try single(#"wb.head_turn { direction = "left", parallax = -1 }"#), script)
    }
  }

  @Test("look up and down: pitch from within 5° to 20°")
  func pitch() throws {
    var script = FrameScript()
    script.add(5) { _ in face(pitch: 1) }
    script.add(5) { _ in face(pitch: -22) }
    let down = try run(try single(#"wb.head_pitch { direction = "down" }"#), script)
    #expect(down.result?.success == true)
    let up = try run(try single(#"wb.head_pitch { direction = "up", timeout = 0.2 }"#), script)
    #expect(up.result?.code == 1007)
  }

  @Test("3 of 5 at random: the seed gives the order, the same seed the same order")
  func randomPick() throws {
    var script = FrameScript()
    script.add(1) { _ in face() }
    let first = try runExample(script, example("liveness-random", seed: 7))
    let session = try #require(first.events("session").first)
    let order = try #require(session["order"]?.arrayValue)
    #expect(order.count == 3)
    #expect(session["seed"] == 7)
    let again = try runExample(script, example("liveness-random", seed: 7))
    #expect(again.events("session").first?["order"] == session["order"])
    var orders = Set<String>()
    for seed in 1...12 {
      let record = try runExample(script, example("liveness-random", seed: Int64(seed)))
      orders.insert("\(record.events("session").first?["order"] ?? .null)")
    }
    #expect(orders.count > 3, "the draw hardly changes with the seed: \(orders)")
  }
}

@Suite("Best shot")
struct BestShotTests {
  private func bestShot(_ script: FrameScript, set: [String] = []) throws -> RunRecord {
    try runExample(script, example("best-shot", set: ["best_shot.timeout=1"] + set))
  }

  private func rejectedCodes(_ record: RunRecord) -> [[Int64]] {
    record.events("status").filter { $0["status"] == "FRAME_REJECTED" }.map { event in
      (event["codes"]?.arrayValue ?? []).compactMap(\.integerValue)
    }
  }

  @Test("good frames held for face_time give the best shot, captured")
  func passes() throws {
    var script = FrameScript()
    script.add(20) { i in face(quality: ["blur": 0.8 + Double(i % 5) * 0.01]) }
    let record = try bestShot(script)
    #expect(record.result?.success == true)
    #expect(record.statuses.last == "BEST_SHOT")
    #expect(!record.events("capture").isEmpty)
    #expect(record.events("capture").allSatisfy { $0["name"] == "best_shot" })
  }

  @Test(
    "each rejection has LUNA ID's code, and a timeout fails with the last one",
    arguments: [
      (face(count: 0), 1005, "no_face"),
      (face(count: 2), 1003, "multiple_faces"),
      (face(box: (500, 300, 120, 150)), 1016, "too_far"),
      (face(box: (4, 160, 300, 360)), 1017, "overlaps_border"),
      (face(yaw: 40), 1002, "head_turned"),
      (face(roll: -30), 1002, "head_turned"),
      (face(blink: 0.9), 1001, "eyes_closed"),
      (face(extra: ["face.liveness": .number(0.2)]), 1004, "liveness_failed"),
      (face(extra: ["face.mask": .string("medical")]), 1008, "medical_mask"),
      (face(extra: ["face.mask": .string("misplaced")]), 1009, "mask_misplaced"),
      (face(extra: ["face.occlusion": .number(0.8)]), 1010, "occluded"),
      (face(extra: ["face.occlusion": .bool(true)]), 1010, "occluded"),
      (face(quality: ["blur": 0.3]), 1011, "blurred"),
      (face(quality: ["darkness": 0.2]), 1012, "too_dark"),
      (face(quality: ["lightness": 0.2]), 1013, "too_light"),
      (face(quality: ["illumination": 0.05]), 1014, "uneven_light"),
      (face(quality: ["specularity": 0.05]), 1015, "specular"),
      (
        face(quality: ["blur": 0.62, "darkness": 0.51, "lightness": 0.58, "illumination": 0.2, "specularity": 0.2]),
        1001, "bad_quality"
      ),
    ] as [([String: MeasurementValue], Int64, String)])
  func rejections(frame: [String: MeasurementValue], code: Int64, reason: String) throws {
    var script = FrameScript()
    script.add(40) { _ in frame }
    let record = try bestShot(script)
    #expect(record.result?.success == false)
    #expect(record.result?.code == code)
    #expect(record.result?.reason == reason)
    #expect(rejectedCodes(record).first?.contains(code) == true, "\(rejectedCodes(record))")
    #expect(record.events("capture").isEmpty)
  }

  @Test(
    "every LUNA ID threshold of examples/best-shot.lua is a setting: tightened, a frame that passed is rejected",
    arguments: [
      ("best_shot.border_left=430", face(), 1017), ("best_shot.border_top=170", face(), 1017),
      ("best_shot.border_right=570", face(), 1017), ("best_shot.border_bottom=210", face(), 1017),
      ("best_shot.max_yaw=5", face(yaw: 10), 1002), ("best_shot.max_pitch=5", face(pitch: -10), 1002),
      ("best_shot.max_roll=5", face(roll: 10), 1002), ("best_shot.blur=0.95", face(), 1011),
      ("best_shot.dark=0.95", face(), 1012), ("best_shot.light=0.95", face(), 1013),
      ("best_shot.illumination=0.95", face(), 1014), ("best_shot.specularity=0.95", face(), 1015),
    ] as [(String, [String: MeasurementValue], Int64)])
  func thresholdSettings(setting: String, frame: [String: MeasurementValue], code: Int64) throws {
    var script = FrameScript()
    script.add(40) { _ in frame }
    #expect(try bestShot(script).result?.success == true, "passes with LUNA ID's defaults")
    let record = try bestShot(script, set: [setting])
    #expect(record.result?.code == code)
    #expect(rejectedCodes(record).first == [code])
  }

  @Test("a live, unmasked, uncovered face (as an estimator plugin measures it) passes; the settings accept the others")
  func pluginMeasurementsAccepted() throws {
    var script = FrameScript()
    script.add(40) { _ in
      face(extra: ["face.liveness": .number(0.9), "face.mask": .string("none"), "face.occlusion": .number(0.1)])
    }
    #expect(try bestShot(script).result?.success == true)
    var masked = FrameScript()
    masked.add(40) { _ in face(extra: ["face.mask": .string("medical"), "face.occlusion": .bool(true)]) }
    let record = try bestShot(masked, set: ["best_shot.accept_mask=true", "best_shot.accept_occluded=true"])
    #expect(record.result?.success == true)
  }

  @Test("loosened, a frame LUNA ID's defaults reject passes")
  func loosenedThresholds() throws {
    var script = FrameScript()
    script.add(40) { _ in face(yaw: 30, box: (5, 160, 300, 360), quality: ["lightness": 0.3]) }
    #expect(try bestShot(script).result?.success == false)
    let record = try bestShot(script, set: ["best_shot.max_yaw=35", "best_shot.border_left=0", "best_shot.light=0.2"])
    #expect(record.result?.success == true)
  }

  @Test("accept_eyes_closed takes frames with closed eyes")
  func eyesClosedAccepted() throws {
    var script = FrameScript()
    script.add(20) { _ in face(blink: 0.9) }
    let record = try bestShot(script, set: ["best_shot.accept_eyes_closed=true"])
    #expect(record.result?.success == true)
  }

  @Test("the face must be held for face_time: a streak broken by a bad frame starts over")
  func faceTime() throws {
    var script = FrameScript()
    script.add(10) { _ in face() }  // 0.33 s
    script.add(1) { _ in face(yaw: 40) }
    script.add(20) { _ in face() }
    let record = try bestShot(script)
    #expect(record.result?.success == true)
    #expect(record.events("step").last?.frame == 26)  // 15 frames (0.5 s) after frame 11
  }

  @Test("start_delay: frames before it are not looked at")
  func startDelay() throws {
    var script = FrameScript()
    script.add(40) { _ in face() }
    let record = try bestShot(script, set: ["best_shot.start_delay=0.5"])
    #expect(record.result?.success == true)
    #expect(record.events("step").last?.frame == 30)
  }
}
