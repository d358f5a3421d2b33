import Diagnostics
import FaceEstimation
import FaceScenes
import Foundation
import JSONCore
import TestSupport
import Testing

@Suite("Face scenes")
struct FaceSceneTests {
  static func frames(_ schedule: String, seed: UInt64 = 1) throws -> [JSONValue] {
    FaceScene(schedule: try FaceSchedule.parse(schedule), options: FaceSceneOptions(seed: seed)).frames()
  }

  /// Every dotted path of a JSON object's values, arrays by 1-based position.
  static func paths(_ value: JSONValue, prefix: String = "") -> Set<String> {
    switch value {
    case .object(let object):
      var result = Set<String>()
      for (key, child) in object { result.formUnion(paths(child, prefix: prefix + key + ".")) }
      return result
    case .array(let array):
      var result = Set<String>()
      for (index, child) in array.enumerated() { result.formUnion(paths(child, prefix: prefix + "\(index + 1).")) }
      return result
    default: return [String(prefix.dropLast())]
    }
  }

  @Test("a frame has exactly the face estimator's measurements, for the largest face and each face")
  func schema() throws {
    let frame = try #require(try Self.frames(#"{"keyframes": [{"t": 0, "count": 2}, {"t": 1}]}"#).first)
    let face = try #require(frame["face"])
    var expected = Set(FaceEstimator.fields + ["count"])
    for index in 1...2 { expected.formUnion(FaceEstimator.fields.map { "faces.\(index).\($0)" }) }
    #expect(Self.paths(face) == expected)
    #expect(frame["image"]?["width"] == .integer(1280))
    #expect(frame["quality"]?["blur"] != nil)
  }

  @Test("the same schedule and seed give the same trace; another seed other noise")
  func deterministic() throws {
    let schedule = #"{"keyframes": [{"t": 0}, {"t": 2, "yaw": 30}]}"#
    #expect(try Self.frames(schedule) == Self.frames(schedule))
    #expect(try Self.frames(schedule) != Self.frames(schedule, seed: 2))
  }

  @Test("a blink closes both eyes for its length: eye aspect ratio low, blendshapes high; then open again")
  func blink() throws {
    let frames = try Self.frames(#"{"keyframes": [{"t": 0}, {"t": 2}], "blinks": [{"t": 1, "ms": 150}]}"#)
    func ear(_ index: Int) -> Double { frames[index]["face"]?["ear_left"]?.doubleValue ?? -1 }
    func blink(_ index: Int) -> Double { frames[index]["face"]?["blink_right"]?.doubleValue ?? -1 }
    // 30 fps: t = 1.1 s is frame 33, inside the shut stretch (1.06–1.21 s).
    #expect(ear(33) < 0.08)
    #expect(blink(33) > 0.5)
    #expect(ear(20) > 0.3)
    #expect(blink(20) < 0.12)
    #expect(ear(45) > 0.3)
    let shut = (0..<frames.count).filter { ear($0) < 0.1 }
    #expect(shut.count >= 4 && shut.count <= 7, "\(shut)")
  }

  @Test("noise: yaw jitters a few tenths of a degree about the schedule's; noise 0 is exact")
  func noise() throws {
    let noisy = try Self.frames(#"{"keyframes": [{"t": 0, "yaw": 10}, {"t": 3, "yaw": 10}]}"#)
    let yaws = noisy.compactMap { $0["face"]?["yaw"]?.doubleValue }
    let mean = yaws.reduce(0, +) / Double(yaws.count)
    let spread = (yaws.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(yaws.count)).squareRoot()
    #expect(abs(mean - 10) < 0.2)
    #expect(spread > 0.1 && spread < 1)
    let exact = try Self.frames(#"{"noise": 0, "keyframes": [{"t": 0, "yaw": 10}, {"t": 1, "yaw": 10}]}"#)
    #expect(exact.allSatisfy { $0["face"]?["yaw"] == .number(10) })
  }

  @Test("no face: count 0 and nothing else; dropout loses the face in some frames")
  func absent() throws {
    let empty = try Self.frames(#"{"keyframes": [{"t": 0, "count": 0}, {"t": 1}]}"#)
    #expect(empty.allSatisfy { $0["face"] == .object(JSONObject([("count", .integer(0))])) })
    let lossy = try Self.frames(#"{"dropout": 0.2, "keyframes": [{"t": 0}, {"t": 10}]}"#)
    let lost = lossy.filter { $0["face"]?["count"] == .integer(0) }.count
    #expect(lost > 30 && lost < 90, "\(lost) of \(lossy.count)")
  }

  @Test("two faces: the largest first, the other beside it")
  func twoFaces() throws {
    let frame = try #require(try Self.frames(#"{"keyframes": [{"t": 0, "count": 2, "size": 0.5}, {"t": 1}]}"#).first)
    let faces = try #require(frame["face"]?["faces"]?.arrayValue)
    #expect(faces.count == 2)
    let first = faces[0]["box"]?["h"]?.doubleValue ?? 0
    let second = faces[1]["box"]?["h"]?.doubleValue ?? 0
    #expect(first > second)
    #expect(frame["face"]?["box"] == faces[0]["box"])
  }

  @Test("mistakes name the file, the line and the key, with the closest key")
  func mistakes() throws {
    func problem(_ text: String) -> WorkbenchError? {
      do {
        _ = try FaceSchedule.parse(text, file: "s.json")
        return nil
      } catch { return error }
    }
    let typo = try #require(problem("{\n  \"keyframes\": [\n    {\"t\": 0},\n    {\"t\": 1, \"yew\": 30}\n  ]\n}"))
    #expect(typo.diagnostics.first?.message == "unknown key 'yew'")
    #expect(typo.diagnostics.first?.location == SourceLocation(file: "s.json", line: 4, key: "keyframes[1].yew"))
    #expect(typo.diagnostics.first?.help == "did you mean 'yaw'?")
    let order = try #require(problem(#"{"keyframes": [{"t": 1}, {"t": 0.5}]}"#))
    #expect(order.diagnostics.first?.message == "times must increase: 0.5 after 1.0")
    let range = try #require(problem(#"{"keyframes": [{"t": 0, "eyes": 2}]}"#))
    #expect(range.diagnostics.first?.message == "'eyes' must be between 0.0 and 1.0, not 2.0")
    let card = try #require(problem(#"{"kind": "card", "keyframes": [{"t": 0}]}"#))
    #expect(card.diagnostics.first?.message.contains("not a face schedule") == true)
    let blink = try #require(problem(#"{"keyframes": [{"t": 0}], "blinks": [{"t": 1, "eye": "both"}]}"#))
    #expect(blink.diagnostics.first?.message.contains("'eye' is \"left\" or \"right\"") == true)
    // Blinks written before the keyframes do not move a keyframe's line.
    let after = try #require(
      problem("{\n  \"blinks\": [{\"t\": 1}],\n  \"keyframes\": [\n    {\"t\": 0},\n    {\"t\": 1, \"yew\": 3}\n  ]\n}")
    )
    #expect(after.diagnostics.first?.location == SourceLocation(file: "s.json", line: 5, key: "keyframes[1].yew"))
  }

  @Test("more blinks or keyframes than the limit are refused, naming the key and the limit")
  func countLimit() throws {
    let blink = #"{"t": 1, "ms": 100}"#
    let many = Array(repeating: blink, count: FaceSchedule.maximumCount + 1).joined(separator: ",")
    do {
      _ = try FaceSchedule.parse(#"{"keyframes": [{"t": 0}, {"t": 2}], "blinks": ["# + many + "]}", file: "s.json")
      Issue.record("10,001 blinks were taken")
    } catch {
      #expect(error.diagnostics.first?.message == "'blinks' has 10001 entries, more than the limit of 10000")
      #expect(error.diagnostics.first?.location?.key == "blinks")
    }
    let most = Array(repeating: blink, count: FaceSchedule.maximumCount).joined(separator: ",")
    let schedule = try FaceSchedule.parse(#"{"keyframes": [{"t": 0}, {"t": 2}], "blinks": ["# + most + "]}")
    #expect(schedule.blinks.count == FaceSchedule.maximumCount)
  }

  @Test("a face schedule is told from a card's")
  func kinds() {
    #expect(FaceSchedule.describesFace(#"{"kind": "face", "keyframes": [{"t": 0}]}"#))
    #expect(FaceSchedule.describesFace(#"{"keyframes": [{"t": 0, "yaw": 10}]}"#))
    #expect(!FaceSchedule.describesFace(#"{"keyframes": [{"t": 0, "tilt_y": 10}]}"#))
  }
}

@Suite("Face scenes: limits")
struct FaceSceneLimitTests {
  @Test("a rate of 0 or a scene too long for one trace still gives a frame, never a trap")
  func frameCount() throws {
    let schedule = try FaceSchedule.parse(#"{"keyframes": [{"t": 0}, {"t": 2}]}"#)
    #expect(FaceScene(schedule: schedule, options: FaceSceneOptions(fps: 0)).frameCount == 1)
    #expect(FaceScene(schedule: schedule, options: FaceSceneOptions(fps: -5)).frameCount == 1)
    #expect(FaceScene(schedule: schedule, options: FaceSceneOptions(fps: .nan)).frameCount == 1)
    #expect(FaceScene(schedule: schedule, options: FaceSceneOptions(fps: 30)).frameCount == 61)
  }
}

@Suite("Face scenes: the examples")
struct FaceSceneExampleTests {
  @Test("every face schedule in examples/synth parses and says it is a face scene")
  func examples() throws {
    let folder = packageRootPath + "/examples/synth"
    let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("face-") }
    #expect(names.count >= 10)
    for name in names {
      let text = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
      #expect(FaceSchedule.describesFace(text), "\(name)")
      #expect(try FaceSchedule.load(path: folder + "/" + name).length > 0, "\(name)")
    }
  }
}
