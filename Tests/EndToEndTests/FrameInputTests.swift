import Foundation
import JSONCore
import TestSupport
import Testing

private let liveness = "examples/liveness.lua"
private let missingCamera = "/dev/video9"

/// `workbench run` over recordings and cameras: frames measured by the estimators.
@Suite struct FrameInputTests {
  @Test(arguments: RecordingKind.allCases)
  func eachRecordingFormatPassesTheSameWayTwice(kind: RecordingKind) throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let (input, options) = try RecordingBuilder.build(kind, in: folder)
    let first = folder.file("first.jsonl")
    let second = folder.file("second.jsonl")
    let a = try workbench(
      ["run", imageQualityFlow, "--input", input, "--events", first, "--quiet"] + options, folder: folder)
    let b = try workbench(
      ["run", imageQualityFlow, "--input", input, "--events", second, "--quiet"] + options, folder: folder)
    #expect(a.status == 0, "\(a)")
    #expect(b.status == 0, "\(b)")

    let firstBytes = try #require(FileManager.default.contents(atPath: first))
    let secondBytes = try #require(FileManager.default.contents(atPath: second))
    #expect(firstBytes == secondBytes)

    let records = try events(first)
    let session = try sessionInput(records)
    #expect(session["kind"] == .string(kind.inputKind))
    #expect(session["width"] == 640)
    #expect(session["height"] == 360)
    #expect(session["fps"]?.doubleValue == 30)
    #expect(
      session["estimators"]
        == ["quality.blur", "quality.darkness", "quality.lightness", "quality.illumination", "quality.specularity"])
    let end = try result(records)
    #expect(end["success"] == true)
    #expect(end["reason"] == "passed")
    #expect(end["frames_skipped"] == 0)
    #expect(end["frames_dropped"] == 0)
    // Half a second of good frames at 30 fps: frames 0...15.
    #expect(end["frame"] == 15)
    #expect(end["frames"] == 16)
  }

  /// 33 images with damage at known places: noise between frames 4 and 5,
  /// frame 8 cut in half (the next image starts inside it), and at 12 a
  /// start of image marker followed by noise. Optionally a last frame cut
  /// short by the end of the file.
  private func damagedMJPEG(in folder: TemporaryFolder, truncatedLastFrame: Bool) throws -> String {
    let frames = try fixtureFrames()
    var bytes: [UInt8] = []
    for (index, frame) in frames.enumerated() {
      if index == 5 { bytes += Array(String(repeating: "not a frame ", count: 40).utf8) }
      if index == 8 {
        bytes += frame.prefix(frame.count / 2)
        continue
      }
      if index == 12 { bytes += [0xFF, 0xD8, 0xFF] + [UInt8](repeating: 0x41, count: 200) }
      bytes += frame
    }
    if truncatedLastFrame { bytes += frames[0].prefix(frames[0].count / 3) }
    let path = folder.file("damaged.mjpeg")
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
  }

  @Test func corruptFramesAreSkippedAndTheFlowStillPasses() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let input = try damagedMJPEG(in: folder, truncatedLastFrame: false)
    let eventsPath = folder.file("events.jsonl")
    let outcome = try workbench(["run", imageQualityFlow, "--input", input, "--events", eventsPath], folder: folder)
    let records = try events(eventsPath)
    let end = try result(records)
    #expect(outcome.status == expectedStatus(of: end), "\(outcome)")
    #expect(outcome.status == 0, "\(outcome)")
    let skipped = records.filter { $0["type"] == "frame_skipped" }
    // The noise between frames is no frame; the cut frame and the fake one are.
    #expect(skipped.map { $0["frame"] } == [8, 12])
    #expect(skipped.allSatisfy { !($0["reason"]?.stringValue ?? "").isEmpty })
    #expect(end["frames_skipped"] == .integer(Int64(skipped.count)))
    #expect(end["frame"] == 15)
    // Frames 0...15 were read, two of them could not be measured.
    #expect(end["frames"] == 14)
  }

  @Test func aRunOverCorruptFramesReadsToTheEnd() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let input = try damagedMJPEG(in: folder, truncatedLastFrame: true)
    let eventsPath = folder.file("events.jsonl")
    // Longer than the recording: the flow sees every frame and then runs out.
    let outcome = try workbench(
      ["run", imageQualityFlow, "--input", input, "--events", eventsPath, "--set", "image_quality.hold_ms=5000"],
      folder: folder)
    let records = try events(eventsPath)
    let end = try result(records)
    #expect(outcome.status == expectedStatus(of: end), "\(outcome)")
    #expect(outcome.status == 1, "\(outcome)")
    #expect(end["reason"] == "end_of_input")
    let skipped = records.filter { $0["type"] == "frame_skipped" }
    // 32 frames plus the fake one at 12 plus the cut-off last one: indexes 0...33.
    #expect(skipped.map { $0["frame"] } == [8, 12, 33])
    #expect(end["frames_skipped"] == .integer(Int64(skipped.count)))
    #expect(end["frames"] == 31)
    #expect(end["frames_dropped"] == 0)
    // Time never goes back, even when the last frame was a skipped one.
    let times = records.compactMap { $0["t"]?.doubleValue }
    #expect(times == times.sorted())
    #expect(end["frame"] == 33)
  }

  @Test func aMissingCameraIsAnInputError() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let eventsPath = folder.file("events.jsonl")
    let outcome = try workbench(["run", liveness, "--camera", missingCamera, "--events", eventsPath], folder: folder)
    #expect(outcome.status == 4, "\(outcome)")
    #expect(outcome.stderr.contains(missingCamera))
    #expect(outcome.stderr.contains("workbench devices"))
    let records = try events(eventsPath)
    #expect(records.first?["type"] == "session")
    let end = try result(records)
    #expect(end["success"] == false)
    #expect(end["reason"] == "input_error")
    #expect(end["error"]?.stringValue?.contains(missingCamera) == true)
  }

  @Test func devicesSucceedsWithOrWithoutCameras() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(["devices"], folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    #expect(!outcome.stdout.isEmpty)
  }

  @Test(arguments: [
    ["--camera", missingCamera, "--input", "examples/recordings/face-blink.avi"],
    ["--camera", missingCamera, "--size", "12x"],
    ["--camera", missingCamera, "--size", "x360"],
    ["--input", "examples/recordings/face-blink.avi", "--size", "640x360"],
    ["--input", "examples/recordings/face-blink.avi", "--fps", "0"],
  ])
  func badFrameOptionsAreUsageErrors(options: [String]) throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let eventsPath = folder.file("events.jsonl")
    let outcome = try workbench(["run", liveness, "--events", eventsPath] + options, folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains("Error:"), "\(outcome)")
    // Refused before anything ran.
    #expect(!FileManager.default.fileExists(atPath: eventsPath))
  }

  enum Unreadable: String, CaseIterable, Sendable {
    case emptyFolder = "empty"
    case noiseNamedAVI = "noise.avi"
    case noiseNamedY4M = "noise.y4m"
    case noiseWithoutExtension = "noise.bin"
    case missing = "missing.avi"
  }

  @Test(arguments: Unreadable.allCases)
  func anUnreadableRecordingIsAnInputError(kind: Unreadable) throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let input = folder.file(kind.rawValue)
    switch kind {
    case .emptyFolder:
      _ = try folder.subfolder(kind.rawValue)
      try folder.write(kind.rawValue + "/notes.txt", "no frames here")
    case .noiseNamedAVI, .noiseNamedY4M, .noiseWithoutExtension:
      try Data(RecordingBuilder.noise(count: 4096)).write(to: URL(fileURLWithPath: input))
    case .missing:
      break
    }
    let eventsPath = folder.file("events.jsonl")
    let outcome = try workbench(["run", imageQualityFlow, "--input", input, "--events", eventsPath], folder: folder)
    #expect(outcome.status == 4, "\(outcome)")
    #expect(outcome.stderr.contains("error: \(input):"), "\(outcome)")
    let end = try result(try events(eventsPath))
    #expect(end["reason"] == "input_error")
    #expect(end["error"]?.stringValue?.contains(input) == true)
  }
}

/// `--fps` with an input that gives its frames' times itself is not used,
/// and the run says so instead of ignoring it in silence.
@Suite struct UnusedRateTests {
  func warning(_ input: String, folder: TemporaryFolder) throws -> String? {
    let outcome = try workbench(
      ["run", imageQualityFlow, "--input", input, "--fps", "10", "--quiet"], folder: folder)
    #expect(outcome.status <= 1, "\(outcome)")
    return outcome.stderr.split(separator: "\n").first { $0.contains("--fps 10 is not used") }.map(String.init)
  }

  @Test func aRateTheInputGivesItselfIsKeptAndTheRunSaysSo() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let bundled = "examples/recordings/face-blink.avi"
    #expect(try warning(bundled, folder: folder)?.contains("the timestamps sidecar beside it") == true)
    let bare = folder.file("bare.avi")
    try FileManager.default.copyItem(atPath: packageRootPath + "/" + bundled, toPath: bare)
    #expect(try warning(bare, folder: folder)?.contains("its header states its rate (30 fps)") == true)
    let trace = try folder.write("t.jsonl", "{\"t\":0,\"quality\":{\"blur\":0.9}}\n")
    #expect(try warning(trace, folder: folder)?.contains("measurement trace") == true)
    // A folder of JPEG files has no rate of its own: --fps is its rate, and nothing is said.
    #expect(try warning(try RecordingBuilder.jpegFolder(in: folder, count: 3), folder: folder) == nil)
  }

  @Test(.enabled(if: VideoClips.available, Comment(rawValue: VideoClips.skipReason)))
  func aVideoFileKeepsItsTimestamps() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let line = try #require(try warning(try VideoClips.path(.h264), folder: folder))
    #expect(line.contains("video file") && line.contains("own timestamps"), "\(line)")
  }
}

/// A recording cut short is read to where it ends, and the run says the
/// container declared more (stderr, the session and result events).
@Suite struct CutRecordingTests {
  func run(_ input: String, folder: TemporaryFolder) throws -> (result: JSONValue, session: JSONValue, stderr: String) {
    let eventsPath = folder.file("events-\(UUID().uuidString.prefix(8)).jsonl")
    let outcome = try workbench(
      // Held longer than any of these recordings: the flow reads to the end.
      [
        "run", imageQualityFlow, "--input", input, "--events", eventsPath, "--quiet", "--set",
        "image_quality.hold_ms=10000",
      ],
      folder: folder)
    let records = try events(eventsPath)
    let result = try #require(records.last { $0["type"] == "result" })
    let session = try #require(records.first { $0["type"] == "session" })
    return (result, session, outcome.stderr)
  }

  @Test func anAVICutShortSaysHowManyFramesItDeclared() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let whole = try RecordingBuilder.avi(in: folder, count: 20)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
    let cut = folder.file("cut.avi")
    try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))

    let read = try run(cut, folder: folder)
    #expect(read.result["reason"] == "end_of_input")
    let incomplete = try #require(read.result["input_incomplete"], "\(read.result)")
    #expect(incomplete["frames_declared"] == .integer(20))
    let frames = try #require(incomplete["frames_read"]?.integerValue)
    #expect(frames > 0 && frames < 20)
    #expect(read.session["input"]?["frames_declared"] == .integer(20))
    #expect(read.stderr.contains("cut.avi: the container declared 20 frames"), "\(read.stderr)")

    let full = try run(whole, folder: folder)
    #expect(full.result["input_incomplete"] == nil, "\(full.result)")
    #expect(!full.stderr.contains("declared"), "\(full.stderr)")
  }

  @Test(.enabled(if: VideoClips.available, Comment(rawValue: VideoClips.skipReason)))
  func anMP4CutShortSaysItsDeclaredFramesAndDuration() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let read = try run(try VideoClips.path(.cutIndexAtFront), folder: folder)
    let incomplete = try #require(read.result["input_incomplete"], "\(read.result)")
    let declared = try #require(incomplete["frames_declared"]?.integerValue)
    let frames = try #require(incomplete["frames_read"]?.integerValue)
    #expect(frames < declared && declared == 60, "\(incomplete)")
    #expect(incomplete["duration_declared"]?.doubleValue.map { abs($0 - 2) < 0.1 } == true, "\(incomplete)")
    #expect(read.stderr.contains("the file is cut short or damaged"), "\(read.stderr)")

    let whole = try run(try VideoClips.path(.h264), folder: folder)
    #expect(whole.result["input_incomplete"] == nil, "\(whole.result)")
  }
}
