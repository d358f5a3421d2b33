import Foundation
import JSONCore
import TestSupport
import Testing

/// `face.liveness.onnx` in whole runs of the bundled real recording, with a
/// model built at test time (make_models.py, the onnx Python package from
/// scripts/install-test-deps): no model ships with workbench.
@Suite(.serialized) struct PassiveLivenessRunTests {
  private let recording = "examples/recordings/face-blink.avi"
  static let python = packageRootPath + "/.build/test-python/bin/python"
  static var available: Bool {
    ContinuousIntegration.isRunning || FileManager.default.isExecutableFile(atPath: python)
  }

  func model(in folder: TemporaryFolder) throws -> String {
    let run = try Spawn.run(
      Self.python, [packageRootPath + "/Tests/PresentationAttackTests/make_models.py", "build", folder.path])
    #expect(run.status == 0, "\(run.stderr)")
    return folder.file("minifas-80.onnx")
  }

  /// A flow of one step: face.liveness above `above`.
  func passiveFlow(in folder: TemporaryFolder, above: Double) throws -> String {
    try folder.write(
      "passive.lua",
      """
      local wb = require "wb"
      return wb.flow {
        name = "passive",
        steps = { wb.threshold { name = "live face", field = "face.liveness", above = \(above), crossing = false, timeout = 60 } },
      }
      """)
  }

  @Test(.enabled(if: available)) func everyFrameWithAFaceHasItsLiveProbability() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    // Never passes: the run reads the whole recording.
    let flow = try passiveFlow(in: folder, above: 1.5)
    let outcome = try workbench(
      [
        "run", flow, "--input", recording, "--quiet", "--set", "pad.model=\(try model(in: folder))",
        "--trace-out", folder.file("t.jsonl"),
      ], folder: folder)
    #expect(outcome.status == 1, "\(outcome)")
    let lines = (fileText(folder.file("t.jsonl")) ?? "").split(separator: "\n").dropFirst()
    let values = try lines.map { line -> Double in
      let frame = try JSONParser.parse(bytes: Array(line.utf8))
      return try #require(frame["face"]?["liveness"]?.doubleValue, "\(line.prefix(80))")
    }
    #expect(values.count > 60)
    #expect(values.allSatisfy { (0...1).contains($0) })
    #expect(Set(values).count > 1)
  }

  @Test(.enabled(if: available)) func theModelRunsOnlyOnTheFramesOfAStepThatReadsIt() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let flow = try folder.write(
      "two-steps.lua",
      """
      local wb = require "wb"
      return wb.flow {
        name = "two steps",
        steps = {
          wb.step { name = "wait", needs = { "face.count" }, timeout = 60,
            update = function(self, m) if m.frame >= 30 then return true end end },
          wb.threshold { name = "live face", field = "face.liveness", above = 1.5, crossing = false, timeout = 60 },
        },
      }
      """)
    let arguments = [
      "run", flow, "--input", recording, "--quiet", "--set", "pad.model=\(try model(in: folder))",
      "--trace-out", folder.file("t.jsonl"),
    ]
    func framesWithLiveness() throws -> [Int] {
      try (fileText(folder.file("t.jsonl")) ?? "").split(separator: "\n").dropFirst().compactMap { line in
        let frame = try JSONParser.parse(bytes: Array(line.utf8))
        return frame["face"]?["liveness"] == nil ? nil : Int(frame["frame"]?.integerValue ?? -1)
      }
    }
    #expect(try workbench(arguments, folder: folder).status == 1)
    let estimated = try framesWithLiveness()
    // The first step ends on frame 30; the second reads face.liveness from its first frame on.
    #expect(estimated.first == 31, "\(estimated)")
    #expect(estimated.count > 30 && estimated == Array(31...(estimated.last ?? 0)), "\(estimated)")
    // pad.every = 1 estimates every frame, whatever the step reads.
    #expect(try workbench(arguments + ["--set", "pad.every=1"], folder: folder).status == 1)
    #expect(try framesWithLiveness().first == 0)
  }

  @Test(.enabled(if: available)) func aLowLiveProbabilityFailsTheBestShotWithLunasCode() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(
      [
        "run", "examples/best-shot.lua", "--input", recording, "--quiet", "--set", "pad.model=\(try model(in: folder))",
        "--set", "best_shot.min_face_px=100", "--set", "best_shot.min_liveness=0.99", "--set", "best_shot.timeout=1.5",
        "--events", folder.file("e.jsonl"),
      ], folder: folder)
    #expect(outcome.status == 1, "\(outcome)")
    let result = try #require(try events(folder.file("e.jsonl")).last { $0["type"] == "result" })
    #expect(result["code"] == 1004, "\(result)")
  }

  @Test(.enabled(if: available)) func theOneShotFlowJudgesTheLiveProbabilityTheModelGives() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let model = try model(in: folder)
    let common = [
      "run", "examples/oneshot-liveness.lua", "--input", recording, "--quiet", "--set", "pad.model=\(model)",
      "--set", "oneshot.min_face_px=100", "--trace-out", folder.file("t.jsonl"),
    ]
    // At a threshold of 0 the best shot passes and the next frame is judged.
    var outcome = try workbench(
      common + ["--set", "oneshot.threshold=0", "--events", folder.file("a.jsonl")], folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    let estimated = try #require(try events(folder.file("a.jsonl")).first { $0["status"] == "LIVENESS_ESTIMATED" })
    let frame = try #require(estimated["frame"]?.doubleValue)
    let traced = try (fileText(folder.file("t.jsonl")) ?? "").split(separator: "\n").dropFirst().map {
      try JSONParser.parse(bytes: Array($0.utf8))
    }
    let onThatFrame = try #require(
      traced.first { $0["frame"]?.doubleValue == frame }?["face"]?["liveness"]?.doubleValue)
    #expect(abs((estimated["liveness"]?.doubleValue ?? -1) - onThatFrame) < 0.0006, "\(estimated)")
    // Above what the model gives, every frame is rejected with 1004 until the search times out.
    outcome = try workbench(
      common + ["--set", "oneshot.threshold=0.99", "--set", "oneshot.timeout=1", "--events", folder.file("b.jsonl")],
      folder: folder)
    #expect(outcome.status == 1, "\(outcome)")
    let result = try #require(try events(folder.file("b.jsonl")).last { $0["type"] == "result" })
    #expect(result["code"] == 1004, "\(result)")
    #expect(result["reason"]?.stringValue == "liveness_failed")
  }

  @Test func theOneShotFlowWithoutAModelEndsWithInitializationFailed() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(
      ["run", "examples/oneshot-liveness.lua", "--input", recording, "--quiet", "--events", folder.file("e.jsonl")],
      folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    let result = try #require(try events(folder.file("e.jsonl")).last { $0["type"] == "result" })
    #expect(result["code"] == 1000, "\(result)")
    #expect(result["reason"]?.stringValue == "initialization_failed")
  }

  @Test func aFlowThatReadsLivenessWithoutAModelStopsAtStart() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let flow = try passiveFlow(in: folder, above: 0.5)
    let outcome = try workbench(["run", flow, "--input", recording, "--quiet"], folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains("face.liveness needs a presentation-attack model, and pad.model is empty"))
    #expect(outcome.stderr.contains("set pad.model"))
  }
}
