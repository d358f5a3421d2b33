import Foundation
import JSONCore
import TestSupport
import Testing

/// The frame lines (`{"frame":N,"t":...}`) of a timestamps sidecar.
private func sidecarFrames(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [JSONValue] {
  let text = try #require(fileText(path), "no sidecar at \(path)", sourceLocation: sourceLocation)
  return try text.split(separator: "\n").map { try JSONParser.parse(String($0)) }.filter { $0["frame"] != nil }
}

/// The files in `folder` whose names start with `prefix` (a recording, its
/// sidecar and any temporary file beside them).
private func files(in folder: TemporaryFolder, startingWith prefix: String) -> [String] {
  folder.listing.filter { $0.hasPrefix(prefix) }
}

/// `run --record` and `workbench record`: frames kept in an MJPEG AVI with a sidecar.
@Suite struct RecordTests {
  @Test(arguments: RecordingKind.allCases)
  func recordAlwaysKeepsARecordingThatReadsBack(from kind: RecordingKind) throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let (input, options) = try RecordingBuilder.build(kind, in: folder)
    let recording = folder.file("kept.avi")
    let firstEvents = folder.file("first.jsonl")
    let outcome = try workbench(
      ["run", imageQualityFlow, "--input", input, "--events", firstEvents, "--record", recording]
        + ["--record-policy", "always"] + options, folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    let first = try result(try events(firstEvents))
    #expect(files(in: folder, startingWith: "kept.avi") == ["kept.avi", "kept.avi.timestamps.jsonl"])

    // The recording holds the frames the flow saw, at their times.
    let frames = try sidecarFrames(recording + ".timestamps.jsonl")
    #expect(.integer(Int64(frames.count)) == first["frames"])
    #expect(frames.first?["t"]?.doubleValue == 0)
    #expect(frames.last?["frame"] == .integer(Int64(frames.count - 1)))

    let againEvents = folder.file("again.jsonl")
    let again = try workbench(
      ["run", imageQualityFlow, "--input", recording, "--events", againEvents], folder: folder)
    #expect(again.status == 0, "\(again)")
    let records = try events(againEvents)
    #expect(try sessionInput(records)["kind"] == "avi")
    let second = try result(records)
    #expect(second["success"] == true)
    #expect(second["t"] == first["t"])
    #expect(second["frame"] == first["frame"])
    #expect(second["frames"] == first["frames"])
  }

  @Test func recordingADamagedInputKeepsTheFrameTimes() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    var bytes: [UInt8] = []
    for (index, frame) in try fixtureFrames().enumerated() {
      bytes += index == 6 ? Array(frame.prefix(frame.count / 2)) : frame
    }
    let input = folder.file("damaged.mjpeg")
    try Data(bytes).write(to: URL(fileURLWithPath: input))
    let recording = folder.file("kept.avi")
    let firstEvents = folder.file("first.jsonl")
    let outcome = try workbench(
      ["run", imageQualityFlow, "--input", input, "--events", firstEvents, "--record", recording], folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    let first = try result(try events(firstEvents))
    #expect(first["frames_skipped"] == 1)

    // The skipped frame is not in the recording, and the gap stays in the times.
    let times = try sidecarFrames(recording + ".timestamps.jsonl").compactMap { $0["t"]?.doubleValue }
    #expect(.integer(Int64(times.count)) == first["frames"])
    let gaps = zip(times, times.dropFirst()).map { ($1 - $0) * 30 }
    #expect(gaps.filter { $0 > 1.5 }.count == 1)

    let againEvents = folder.file("again.jsonl")
    let again = try workbench(
      ["run", imageQualityFlow, "--input", recording, "--events", againEvents], folder: folder)
    #expect(again.status == 0, "\(again)")
    let second = try result(try events(againEvents))
    #expect(second["frames_skipped"] == 0)
    #expect(second["t"] == first["t"])
    #expect(second["frames"] == first["frames"])
  }

  struct PolicyCase: Sendable, CustomTestStringConvertible {
    var policy: String
    var flowPasses: Bool
    var kept: Bool
    var testDescription: String { "--record-policy \(policy), flow \(flowPasses ? "passes" : "fails")" }
  }

  @Test(arguments: [
    PolicyCase(policy: "failed", flowPasses: true, kept: false),
    PolicyCase(policy: "failed", flowPasses: false, kept: true),
    PolicyCase(policy: "passed", flowPasses: false, kept: false),
    PolicyCase(policy: "passed", flowPasses: true, kept: true),
    PolicyCase(policy: "always", flowPasses: false, kept: true),
  ])
  func thePolicyDecidesWhetherTheRecordingStays(_ policyCase: PolicyCase) throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let input = try RecordingBuilder.mjpeg(in: folder)
    let recording = folder.file("kept.avi")
    let failing = policyCase.flowPasses ? [] : ["--set", "image_quality.min_sharpness=0.99"]
    let outcome = try workbench(
      ["run", imageQualityFlow, "--input", input, "--record", recording, "--record-policy", policyCase.policy]
        + failing, folder: folder)
    #expect(outcome.status == (policyCase.flowPasses ? 0 : 1), "\(outcome)")
    let left = files(in: folder, startingWith: "kept.avi")
    #expect(left == (policyCase.kept ? ["kept.avi", "kept.avi.timestamps.jsonl"] : []), "\(outcome)")
  }

  @Test func recordingATraceIsAUsageError() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let recording = folder.file("kept.avi")
    let outcome = try workbench(
      ["run", "examples/liveness.lua", "--input", "examples/traces/liveness-pass.jsonl", "--record", recording],
      folder: folder)
    #expect(outcome.stderr.contains("--record keeps frames, and a measurement trace has none"), "\(outcome)")
    #expect(files(in: folder, startingWith: "kept.avi") == [])
    // The session reports it as an input error (exit 4, reason input_error).
    #expect(outcome.status == 2, "\(outcome)")
  }

  enum Overwrite: String, CaseIterable, Sendable {
    case samePath = "the same path"
    case dottedPath = "the same file through ./"
    case folder = "the frames folder"
  }

  @Test(arguments: Overwrite.allCases)
  func recordingOverTheInputIsRefused(_ overwrite: Overwrite) throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let input: String
    let record: String
    switch overwrite {
    case .samePath:
      input = try RecordingBuilder.mjpeg(in: folder)
      record = input
    case .dottedPath:
      input = try RecordingBuilder.mjpeg(in: folder)
      record = folder.path + "/./" + (input as NSString).lastPathComponent
    case .folder:
      input = try RecordingBuilder.jpegFolder(in: folder)
      record = input
    }
    let before = folder.listing
    let inputBytes = FileManager.default.contents(atPath: input)
    let inputEntries = try? FileManager.default.contentsOfDirectory(atPath: input)
    let outcome = try workbench(["run", imageQualityFlow, "--input", input, "--record", record], folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains("would overwrite"), "\(outcome)")
    #expect(folder.listing.filter { !$0.hasPrefix("std") } == before.filter { !$0.hasPrefix("std") })
    #expect(FileManager.default.contents(atPath: input) == inputBytes)
    #expect((try? FileManager.default.contentsOfDirectory(atPath: input)) == inputEntries)
  }

  @Test func recordingOverTheInputThroughASymbolicLinkIsRefused() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let input = try RecordingBuilder.mjpeg(in: folder)
    let link = folder.file("link.mjpeg")
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: input)
    let original = FileManager.default.contents(atPath: input)
    let outcome = try workbench(["run", imageQualityFlow, "--input", link, "--record", input], folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(FileManager.default.contents(atPath: input) == original)
  }

  @Test func aRecordingThatCannotBeWrittenFailsTheRun() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let input = try RecordingBuilder.mjpeg(in: folder)
    let recording = folder.file("missing-folder/kept.avi")
    let eventsPath = folder.file("events.jsonl")
    let outcome = try workbench(
      ["run", imageQualityFlow, "--input", input, "--record", recording, "--events", eventsPath], folder: folder)
    #expect(outcome.stderr.contains("error: \(recording):"), "\(outcome)")
    #expect(!FileManager.default.fileExists(atPath: recording))
    let end = try result(try events(eventsPath))
    // Refused before the flow runs: the recording it asks for cannot be made.
    #expect(outcome.status == 2, "\(outcome)")
    #expect(end["success"] == false)
    #expect(end["reason"] == "output_error")
  }

  @Test func recordOverItsOwnInputIsRefused() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let input = try RecordingBuilder.mjpeg(in: folder)
    let original = FileManager.default.contents(atPath: input)
    let outcome = try workbench(["record", "--input", input, "--out", input], folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(FileManager.default.contents(atPath: input) == original)
  }

  @Test func recordStopsAfterTheGivenNumberOfFrames() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let input = try RecordingBuilder.jpegFolder(in: folder)
    let recording = folder.file("five.avi")
    let outcome = try workbench(["record", "--input", input, "--out", recording, "--frames", "5"], folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    #expect(outcome.stderr.contains("recorded 5 frames"), "\(outcome)")
    #expect(try sidecarFrames(recording + ".timestamps.jsonl").map { $0["frame"] } == [0, 1, 2, 3, 4])

    // Read back: the flow sees exactly five frames, then the recording ends.
    let eventsPath = folder.file("events.jsonl")
    let run = try workbench(
      ["run", imageQualityFlow, "--input", recording, "--events", eventsPath, "--set", "image_quality.hold_ms=5000"],
      folder: folder)
    #expect(run.status == 1, "\(run)")
    let end = try result(try events(eventsPath))
    #expect(end["reason"] == "end_of_input")
    #expect(end["frames"] == 5)
    #expect(end["frames_skipped"] == 0)
  }

  @Test func recordFromAMissingCameraLeavesNoFile() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let recording = folder.file("y.avi")
    let outcome = try workbench(["record", "--camera", "/dev/video9", "--out", recording], folder: folder)
    #expect(outcome.status == 4, "\(outcome)")
    #expect(outcome.stderr.contains("/dev/video9"), "\(outcome)")
    #expect(files(in: folder, startingWith: "y.avi") == [])
  }

  @Test func aRecordingThePolicyThrowsAwayLeavesAnOlderFileAtThatPathAlone() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let input = try RecordingBuilder.mjpeg(in: folder)
    let recording = try folder.write("kept.avi", "an earlier recording")
    let outcome = try workbench(
      ["run", imageQualityFlow, "--input", input, "--record", recording, "--record-policy", "failed", "--quiet"],
      folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    #expect(fileText(recording) == "an earlier recording")
    // Nothing pending is left beside it either.
    #expect(folder.listing.filter { $0.contains("pending") } == [])
  }

  @Test func aFlowReadingWhatNoEstimatorProvidesIsWarnedAbout() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let input = try RecordingBuilder.mjpeg(in: folder)
    let flow = try folder.write(
      "contrast.lua",
      """
      local wb = require "wb"
      return wb.flow { name = "hands", steps = { wb.range { field = "hand.openness", min = 0.5, hold_ms = 100 } } }
      """)
    let outcome = try workbench(["run", flow, "--input", input, "--quiet"], folder: folder)
    #expect(outcome.stderr.contains("hand.openness, which no estimator provides"), "\(outcome)")
  }
}
