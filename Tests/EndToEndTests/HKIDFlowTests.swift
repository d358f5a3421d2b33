import Foundation
import JSONCore
import TestSupport
import Testing

/// A card held to the camera, as the card estimator reports it: keyframes
/// of the pose and the picture, linearly in between, sampled at 30 fps.
struct CardMotion {
  struct Key {
    var t: Double
    var tiltX = 0.0
    var tiltY = 0.0
    var ratio = 0.5
    var glare = 0.0
    var found = true
  }

  var keys: [Key]
  var fps = 30.0

  /// The trace, with card.speed from the change of tilt between frames.
  var trace: String {
    var lines = [#"{"workbench_trace":1}"#]
    guard let last = keys.last else { return "" }
    let count = Int((last.t * fps).rounded()) + 1
    var previous: (x: Double, y: Double)?
    for index in 0..<count {
      let t = Double(index) / fps
      let key = sample(t)
      var card = JSONObject([("found", .bool(key.found))])
      if key.found {
        let speed = previous.map { hypot(key.tiltX - $0.x, key.tiltY - $0.y) * fps } ?? 0
        card["tilt_x"] = .number((key.tiltX * 1000).rounded() / 1000)
        card["tilt_y"] = .number((key.tiltY * 1000).rounded() / 1000)
        card["size_ratio"] = .number((key.ratio * 1000).rounded() / 1000)
        card["speed"] = .number((speed * 1000).rounded() / 1000)
        card["glare"] = .number(key.glare)
        previous = (key.tiltX, key.tiltY)
      } else {
        previous = nil
      }
      let frame = JSONObject([
        ("t", .number((t * 1_000_000).rounded() / 1_000_000)), ("frame", .integer(Int64(index))),
        ("card", .object(card)),
      ])
      lines.append(JSONValue.object(frame).jsonText)
    }
    return lines.joined(separator: "\n") + "\n"
  }

  private func sample(_ t: Double) -> Key {
    guard let after = keys.firstIndex(where: { $0.t >= t }) else { return keys.last! }
    if after == 0 { return keys[0] }
    let a = keys[after - 1]
    let b = keys[after]
    let w = b.t > a.t ? (t - a.t) / (b.t - a.t) : 1
    func mix(_ x: Double, _ y: Double) -> Double { x + (y - x) * w }
    return Key(
      t: t, tiltX: mix(a.tiltX, b.tiltX), tiltY: mix(a.tiltY, b.tiltY), ratio: mix(a.ratio, b.ratio),
      glare: mix(a.glare, b.glare), found: w < 1 ? a.found : b.found)
  }

  /// Front-on, flip one way to `angle` and back, then the other way and
  /// back, each flip taking `flipSeconds` out and back.
  static func flips(axis: String, first: Double, second: Double, flipSeconds: Double = 0.6, start: Double = 0.8)
    -> CardMotion
  {
    func pose(_ t: Double, _ angle: Double) -> Key {
      axis == "x" ? Key(t: t, tiltX: angle) : Key(t: t, tiltY: angle)
    }
    var t = start
    var keys = [pose(0, 0), pose(t, 0)]
    for angle in [first, second] {
      t += flipSeconds
      keys.append(pose(t, angle))
      t += 0.2
      keys.append(pose(t, angle))
      t += flipSeconds
      keys.append(pose(t, 0))
      t += 0.6
      keys.append(pose(t, 0))
    }
    keys.append(pose(t + 0.5, 0))
    return CardMotion(keys: keys)
  }
}

/// The HKID example flows on card traces: every status and result code.
@Suite struct HKIDFlowTests {
  struct Run {
    var outcome: Outcome
    var records: [JSONValue]

    var statuses: [String] { records.filter { $0["type"] == "status" }.compactMap { $0["status"]?.stringValue } }
    var hints: [String] { records.filter { $0["type"] == "hint" }.compactMap { $0["key"]?.stringValue } }
    var result: JSONValue? { records.last }
    var code: Int64? { result?["code"]?.integerValue }
    var intermediates: [JSONValue] { records.filter { $0["type"] == "intermediate" } }
  }

  private func flow(_ generation: String, _ motion: CardMotion, set: [String] = []) throws -> Run {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let trace = try folder.write("card.jsonl", motion.trace)
    let outcome = try workbench(
      ["run", "examples/hkid-\(generation).lua", "--input", trace, "--quiet", "--events", folder.file("events.jsonl")]
        + set.flatMap { ["--set", $0] }, folder: folder)
    return Run(outcome: outcome, records: try events(folder.file("events.jsonl")))
  }

  @Test func the2018CardFlippedRightThenLeftPasses() throws {
    let run = try flow("2018", .flips(axis: "y", first: 35, second: -35))
    #expect(run.outcome.status == 0, "\(run.outcome)")
    #expect(run.statuses == ["BEGIN", "ORTH", "RESET", "LEFTDOWN", "RESET", "COMPLETE"], "\(run.statuses)")
    #expect(run.code == 0)
    let first = try #require(run.intermediates.first)
    #expect(run.intermediates.count == 1)
    #expect(first["code"] == 1 && first["reason"] == "first", "\(first)")
    #expect(first["message"] == "First motion recognised")
    #expect(
      run.hints == [
        "idcard_operation_title1", "idcard_operation_title10", "idcard_operation_title2", "idcard_operation_title8",
        "idcard_operation_title12", "idcard_operation_title3", "idcard_operation_title12", "idcard_operation_title7",
      ], "\(run.hints)")
    // A trace has no pixels: the captures are named, with no images.
    let captures = try #require(run.result?["captures"]?.objectValue)
    #expect(captures.keys == ["first", "second", "complete"], "\(captures)")
  }

  @Test func the2003CardFlippedUpThenDownPasses() throws {
    let run = try flow("2003", .flips(axis: "x", first: 35, second: -35))
    #expect(run.outcome.status == 0, "\(run.outcome)")
    #expect(run.statuses == ["BEGIN", "ORTH", "RESET", "LEFTDOWN", "RESET", "COMPLETE"], "\(run.statuses)")
    #expect(run.hints.contains("idcard_operation_title4") && run.hints.contains("idcard_operation_title9"))
    #expect(run.hints.contains("idcard_operation_title5"))
  }

  @Test func aFlipInTheWrongDirectionDoesNotCount() throws {
    // 2018 wants right first: left, back, left again never gets past ORTH.
    let wrongWay = try flow("2018", .flips(axis: "y", first: -35, second: -35), set: ["hkid.overtime=4"])
    #expect(wrongWay.outcome.status == 1, "\(wrongWay.outcome)")
    #expect(wrongWay.statuses == ["BEGIN", "ORTH"], "\(wrongWay.statuses)")
    #expect(wrongWay.intermediates.isEmpty)
    #expect(wrongWay.code == 4 && wrongWay.result?["reason"] == "overtime")
    // The 2003 flow does not take flips about the other axis.
    let otherAxis = try flow("2003", .flips(axis: "y", first: 35, second: -35), set: ["hkid.overtime=4"])
    #expect(otherAxis.statuses == ["BEGIN", "ORTH"], "\(otherAxis.statuses)")
    #expect(otherAxis.code == 4)
  }

  @Test func aStaticCardNeverCompletesAndRunsOutOfTime() throws {
    let still = CardMotion(keys: [.init(t: 0), .init(t: 32)])
    let run = try flow("2018", still)
    #expect(run.outcome.status == 1, "\(run.outcome)")
    #expect(!run.statuses.contains("COMPLETE"))
    #expect(run.code == 4 && run.result?["reason"] == "overtime", "\(String(describing: run.result))")
    #expect(run.result?["message"] == "Timed out: please start again")
    #expect(run.hints.last == "idcard_operation_title11", "\(run.hints)")
    let t = try #require(run.result?["t"]?.doubleValue)
    #expect(abs(t - 30) < 0.05, "overtime at \(t) s")
  }

  @Test func aCardThatLeavesTheFrameIsLost() throws {
    var motion = CardMotion.flips(axis: "y", first: 35, second: -35)
    // After the first flip, the card goes out of sight for good.
    motion.keys = [.init(t: 0), .init(t: 0.8), .init(t: 1.4, tiltY: 35), .init(t: 1.6, found: false), .init(t: 5)]
    let run = try flow("2018", motion)
    #expect(run.outcome.status == 1, "\(run.outcome)")
    #expect(run.code == 3 && run.result?["reason"] == "lost", "\(String(describing: run.result))")
    #expect(run.intermediates.count == 1)
    let t = try #require(run.result?["t"]?.doubleValue)
    #expect(abs(t - (1.6 + 1.5)) < 0.05, "lost at \(t) s")
  }

  @Test func glareThatStaysEndsWithExposure() throws {
    let motion = CardMotion(keys: [.init(t: 0), .init(t: 1), .init(t: 1.01, glare: 0.3), .init(t: 4, glare: 0.3)])
    let run = try flow("2018", motion)
    #expect(run.code == 2 && run.result?["reason"] == "exposure", "\(String(describing: run.result))")
    #expect(run.hints.contains("idcard_operation_title6"), "\(run.hints)")
    // A short glint does not end it.
    let glint = CardMotion(keys: [
      .init(t: 0), .init(t: 1), .init(t: 1.01, glare: 0.3), .init(t: 1.3, glare: 0.3), .init(t: 1.31), .init(t: 3),
    ])
    let short = try flow("2018", glint, set: ["hkid.overtime=3"])
    #expect(short.code == 4, "\(String(describing: short.result))")
    #expect(short.hints.contains("idcard_operation_title6"))
  }

  @Test func aCardTooFarRaisesFarThenValidWhenItComesCloser() throws {
    var motion = CardMotion.flips(axis: "y", first: 35, second: -35, start: 2.0)
    motion.keys[0].ratio = 0.2
    motion.keys.insert(.init(t: 0.8, ratio: 0.2), at: 1)
    motion.keys.insert(.init(t: 1.2, ratio: 0.5), at: 2)
    let run = try flow("2018", motion)
    #expect(run.outcome.status == 0, "\(run.outcome)")
    #expect(Array(run.statuses.prefix(3)) == ["BEGIN", "FAR", "VALID"], "\(run.statuses)")
    #expect(run.statuses.last == "COMPLETE")
    #expect(run.hints.prefix(3) == ["idcard_operation_title1", "idcard_operation_title13", "idcard_operation_title1"])
    // Too near.
    let near = try flow(
      "2018", CardMotion(keys: [.init(t: 0, ratio: 0.95), .init(t: 1, ratio: 0.95), .init(t: 1.5), .init(t: 2)]))
    #expect(Array(near.statuses.prefix(3)) == ["BEGIN", "NEAR", "VALID"], "\(near.statuses)")
    #expect(near.hints.contains("idcard_operation_title14"))
  }

  @Test func aFlipTooFastRaisesOverspeed() throws {
    let run = try flow("2018", .flips(axis: "y", first: 35, second: -35, flipSeconds: 0.15))
    #expect(run.statuses.contains("OVERSPEED"), "\(run.statuses)")
    #expect(run.statuses.contains("VALID"))
    #expect(run.hints.contains("idcard_operation_title15"))
    let slow = try flow("2018", .flips(axis: "y", first: 35, second: -35, flipSeconds: 0.6))
    #expect(!slow.statuses.contains("OVERSPEED"), "\(slow.statuses)")
  }

  @Test func theHintsAreInTraditionalChineseToo() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let trace = try folder.write("card.jsonl", CardMotion.flips(axis: "y", first: 35, second: -35).trace)
    let outcome = try workbench(
      ["run", "examples/hkid-2018.lua", "--input", trace, "--lang", "zh-HK", "--events", "-", "--quiet"], folder: folder
    )
    #expect(outcome.status == 0, "\(outcome)")
    #expect(outcome.stdout.contains("請慢慢將證件向右翻轉"), "\(outcome)")
    #expect(outcome.stdout.contains("識別完成"))
  }
}

/// A variant of the bundled HKID check is a few lines (examples/hkid-2018-wide.lua):
/// its settings, hints and extra steps take effect without copying hkid.lua.
@Suite struct HKIDVariantTests {
  @Test func theVariantsOverridesTakeEffect() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let eventsPath = folder.file("events.jsonl")
    let outcome = try workbench(
      [
        "run", "examples/hkid-2018-wide.lua", "--input", "examples/traces/hkid-2018-pass.jsonl", "--events", eventsPath,
        "-q",
      ], folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    let records = try events(eventsPath)
    let hints = records.filter { $0["type"] == .string("hint") }.compactMap { $0["key"]?.stringValue }
    #expect(hints.first == "hand_idcard_tip1", "\(hints)")
    #expect(!hints.contains("idcard_operation_title1"))
    let steps = records.filter { $0["type"] == .string("step") && $0["state"] == .string("passed") }
    #expect(steps.compactMap { $0["name"]?.stringValue }.last == "held still")
    let settings = try workbench(["settings", "examples/hkid-2018-wide.lua"], folder: folder)
    #expect(
      settings.stdout.contains("hkid.flip_angle                30 deg     flow examples/hkid-2018-wide.lua"),
      "\(settings)")
  }

  @Test func replacingAStepThatDoesNotExistNamesTheSteps() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let flow = try folder.write(
      "variant.lua",
      """
      local wb = require "wb"
      return require("hkid").flow("2018", { replace = { ["flip lft"] = wb.step("x", function() return true end) } })
      """)
    // The variant requires hkid from the examples folder.
    let copy = folder.path + "/hkid.lua"
    try FileManager.default.copyItem(atPath: packageRoot + "/examples/hkid.lua", toPath: copy)
    let outcome = try workbench(["check", flow], folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(
      outcome.stderr.contains("variant.lua: hkid.flow: replace names 'flip lft', which is not a step"), "\(outcome)")
    #expect(outcome.stderr.contains("'flip left'"), "\(outcome)")
  }
}
