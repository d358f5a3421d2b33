import Foundation
import JSONCore
import TestSupport
import Testing

/// Runs on video files as phones and the SDKs write them, read through
/// FFmpeg: the bundled recording encoded by the ffmpeg command.
@Suite(.enabled(if: VideoClips.available || Browser.required, Comment(rawValue: VideoClips.skipReason)))
struct VideoInputTests {
  private let recording = packageRoot + "/examples/recordings/face-blink.avi"

  /// The recording as H.264 in MP4, as LUNA ID records on Android.
  private func h264() throws -> String {
    try VideoClips.make(
      from: recording, ["-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-pix_fmt", "yuv420p"],
      name: "face-blink-h264.mp4")
  }

  /// The recording as HEVC in MOV with frames about 1/24 s and 1/30 s apart in turn, as a phone records.
  private func variableRateHEVC() throws -> String {
    try VideoClips.make(
      from: recording,
      [
        "-vf", "settb=1/600,setpts=(floor((N+1)/2)/24+floor(N/2)/30)/TB", "-fps_mode", "passthrough",
        "-enc_time_base", "1/600", "-video_track_timescale", "600", "-c:v", "libx265", "-preset", "ultrafast",
        "-x265-params", "log-level=error", "-crf", "20", "-pix_fmt", "yuv420p", "-tag:v", "hvc1",
      ], name: "face-blink-vfr.mov")
  }

  /// Every frame's time as the run saw it, from its measurement trace.
  private func traceTimes(_ path: String) throws -> [Double] {
    let text = try #require(fileText(path), "no trace at \(path)")
    return try text.split(separator: "\n").dropFirst().map { line in
      try #require(try JSONParser.parse(String(line))["t"]?.doubleValue, "a trace line without t: \(line)")
    }
  }

  @Test(arguments: ["h264", "hevc-vfr"])
  func theBlinkFlowPassesOnAVideoFileAtTheFilesOwnTimes(clip: String) throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let input = clip == "h264" ? try h264() : try variableRateHEVC()
    let outcome = try workbench(
      [
        "run", "examples/liveness-blink.lua", "--input", input, "--quiet", "--events", folder.file("e.jsonl"),
        "--trace-out", folder.file("trace.jsonl"),
      ], folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    let records = try events(folder.file("e.jsonl"))
    let session = try #require(records.first { $0["type"] == "session" })
    #expect(session["input"]?["kind"] == "video", "\(session)")
    #expect(session["input"]?["codec"] == .string(clip == "h264" ? "h264" : "hevc"), "\(session)")
    #expect(session["input"]?["timing"] == "container", "\(session)")
    #expect(session["input"]?["rotation"] == 0, "\(session)")
    // Ground truth of the recording: eyes closed at frames 26-28.
    let closed = try #require(records.first { $0["status"] == "EYES_CLOSED" })
    #expect((25...27).contains(closed["frame"]?.integerValue ?? -1), "\(closed)")
    // The run's frame times are the file's presentation times, as ffprobe reports them.
    let expected = try VideoClips.frameTimes(input)
    let seen = try traceTimes(folder.file("trace.jsonl"))
    #expect(expected.count == 72)
    // The flow passes at the end of the blink, and the run ends there.
    #expect(seen.count > 28 && seen.count <= expected.count, "\(seen.count) frames in the trace")
    for (time, reference) in zip(seen, expected) { #expect(abs(time - reference) < 1e-5, "\(time) vs \(reference)") }
    if clip == "hevc-vfr" {
      let intervals = zip(seen.dropFirst(), seen).map { $0 - $1 }
      #expect((intervals.max() ?? 0) - (intervals.min() ?? 0) > 0.005, "\(intervals)")
    }
  }

  @Test func probeSaysWhatIsInAFileAndWhetherItCanBeRead() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let vfr = try variableRateHEVC()
    let text = try workbench(["probe", vfr], folder: folder)
    #expect(text.status == 0, "\(text)")
    #expect(text.stdout.contains("readable"), "\(text.stdout)")
    #expect(text.stdout.contains("hevc"), "\(text.stdout)")
    #expect(text.stdout.contains("rate        variable"), "\(text.stdout)")
    #expect(text.stdout.contains("frames      72"), "\(text.stdout)")
    let json = try workbench(["probe", "--json", try h264()], folder: folder)
    #expect(json.status == 0, "\(json)")
    let probe = try JSONParser.parse(json.stdout)
    #expect(probe["readable"] == .bool(true))
    #expect(probe["video"]?["codec"] == "h264")
    #expect(probe["rate"]?["constant"] == .bool(true))
    #expect(probe["frames"] == 72)
    let audio = try VideoClips.path(.audioOnly)
    let refused = try workbench(["probe", audio], folder: folder)
    #expect(refused.status == 4, "\(refused)")
    #expect(refused.stdout.contains("not readable") && refused.stdout.contains("audio"), "\(refused.stdout)")
    #expect(refused.stderr.contains("error: \(audio)") && refused.stderr.contains("no video stream"), "\(refused)")
  }

  @Test func aRunOnAFileWithoutVideoIsAnInputError() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let audio = try VideoClips.path(.audioOnly)
    let outcome = try workbench(
      ["run", "examples/liveness-blink.lua", "--input", audio, "--events", folder.file("e.jsonl")], folder: folder)
    #expect(outcome.status == 4, "\(outcome)")
    #expect(outcome.stderr.contains(audio) && outcome.stderr.contains("no video stream"), "\(outcome.stderr)")
    #expect(try result(events(folder.file("e.jsonl")))["reason"] == "input_error")
  }
}

/// Recording as LUNA ID does: H.264 in the container the name says.
@Suite(.enabled(if: VideoClips.available || Browser.required, Comment(rawValue: VideoClips.skipReason)))
struct VideoRecordingTests {
  private let recording = "examples/recordings/face-blink.avi"

  /// The sidecar's frame times, in frame order.
  private func sidecarTimes(_ path: String) throws -> [Double] {
    let text = try #require(fileText(path), "no sidecar at \(path)")
    return try text.split(separator: "\n").map { try JSONParser.parse(String($0)) }.filter { $0["frame"] != nil }
      .compactMap { $0["t"]?.doubleValue }
  }

  @Test(arguments: ["kept.mp4", "kept.mov", "kept.mkv"])
  func runRecordKeepsEveryFrameAsH264AtItsTime(name: String) throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let out = folder.file(name)
    let outcome = try workbench(
      [
        "run", "examples/image-quality.lua", "--input", recording, "--record", out, "--record-policy", "always",
        "--set", "image_quality.hold_ms=5000", "--events", folder.file("e.jsonl"),
      ], folder: folder)
    #expect(outcome.status == 1, "\(outcome)")
    let end = try result(events(folder.file("e.jsonl")))
    #expect(end["reason"] == "end_of_input")
    let kept = try #require(end["outputs"]?["recording"])
    #expect(kept["kept"] == .bool(true), "\(kept)")
    #expect(kept["frames"] == 72, "\(kept)")
    // No temporary file is left beside it.
    #expect(folder.listing.filter { $0.hasPrefix(".") }.isEmpty, "\(folder.listing)")
    let fields = try VideoClips.streamFields(out)
    #expect(fields["streams_stream_0_codec_name"] == "h264", "\(fields)")
    #expect(fields["streams_stream_0_width"] == "640" && fields["streams_stream_0_height"] == "360")
    // Every kept frame decodes, at the time the run saw it.
    let times = try VideoClips.frameTimes(out)
    let seen = try sidecarTimes(out + ".timestamps.jsonl")
    #expect(times.count == 72 && seen.count == 72)
    for (time, reference) in zip(times, seen) { #expect(abs(time - reference) < 0.001, "\(time) vs \(reference)") }
    // Fragmented, a fragment a second: 72 frames at 30 fps are three (an MP4 or a MOV).
    if !name.hasSuffix(".mkv") { #expect(try fragments(in: out) == 3) }
    // And it reads back through workbench as the same session.
    let again = try workbench(
      [
        "run", "examples/image-quality.lua", "--input", out, "--set", "image_quality.hold_ms=5000", "--events",
        folder.file("again.jsonl"),
      ], folder: folder)
    #expect(again.status == 1, "\(again)")
    let second = try result(events(folder.file("again.jsonl")))
    #expect(second["frames"] == end["frames"])
    #expect(second["t"] == end["t"])
  }

  /// The fragments (`moof` boxes) of an MP4 written so far.
  private func fragments(in path: String) throws -> Int {
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    let name = Array("moof".utf8)
    guard bytes.count >= 4 else { return 0 }
    return (0...(bytes.count - 4)).filter { bytes[$0] == name[0] && Array(bytes[$0..<$0 + 4]) == name }.count
  }

  /// A run killed outright (SIGKILL, a power cut) while recording leaves its
  /// temporary file, which plays up to its last whole fragment: at most the
  /// last second is lost, where a file with its index at the end played not at all.
  @Test(.enabled(if: VideoClips.available, Comment(rawValue: VideoClips.skipReason)))
  func aKilledRecordingPlaysUpToItsLastSecond() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let input = try RecordingBuilder.y4m(in: folder, count: 300)
    let out = folder.file("killed.mp4")
    let run = try Launched(
      [
        "run", "examples/image-quality.lua", "--input", input, "--realtime", "--record", out, "--record-policy",
        "always", "--set", "image_quality.hold_ms=10000", "--quiet",
      ], folder: folder)
    var temporary: String?
    var written = 0
    // A generous safety limit, not a timing check: the kill comes once three fragments are on disk.
    let deadline = Date().addingTimeInterval(120)
    while Date() < deadline, run.isRunning, written < 3 {
      if let name = folder.listing.first(where: { $0.hasPrefix(".killed.mp4.") && $0.hasSuffix(".tmp") }) {
        temporary = folder.file(name)
        written = try fragments(in: folder.file(name))
      }
      Thread.sleep(forTimeInterval: 0.05)
    }
    try #require(written >= 3, "\(folder.listing) \(run.errorSoFar)")
    kill(run.process.processIdentifier, SIGKILL)
    let outcome = run.wait()
    #expect(outcome.signaled)
    #expect(!FileManager.default.fileExists(atPath: out), "a killed run renames nothing into place")
    let kept = try #require(temporary)
    let times = try VideoClips.frameTimes(kept)
    // The fragments before the last one seen are whole: 30 frames each.
    #expect(times.count >= (written - 1) * 30, "\(times.count) frames in \(written) fragments")
    #expect(times.first == 0 && zip(times.dropFirst(), times).allSatisfy { $0 > $1 }, "\(times)")
  }

  @Test func aPolicyThatThrowsTheRecordingAwayLeavesNothingAndAKeptOneIsWhole() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    // The flow passes: "failed" throws the recording away, "passed" keeps it.
    for policy in ["failed", "passed"] {
      let out = folder.file("\(policy).mp4")
      let outcome = try workbench(
        [
          "run", "examples/image-quality.lua", "--input", recording, "--record", out, "--record-policy", policy,
          "--events", folder.file("\(policy).jsonl"),
        ], folder: folder)
      #expect(outcome.status == 0, "\(outcome)")
      let kept = try #require(try result(events(folder.file("\(policy).jsonl")))["outputs"]?["recording"])
      #expect(kept["kept"] == .bool(policy == "passed"), "\(kept)")
      #expect(FileManager.default.fileExists(atPath: out) == (policy == "passed"))
      if policy == "passed" {
        #expect(try VideoClips.frameTimes(out).count == Int(kept["frames"]?.integerValue ?? -1))
      }
    }
    #expect(folder.listing.filter { $0.hasPrefix(".") }.isEmpty, "\(folder.listing)")
  }

  @Test func workbenchRecordWritesAnMP4() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let out = folder.file("clip.mp4")
    let outcome = try workbench(["record", "--input", recording, "--out", out, "--frames", "20"], folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    #expect(outcome.stderr.contains("recorded 20 frames"), "\(outcome)")
    #expect(try VideoClips.frameTimes(out).count == 20)
    #expect(try VideoClips.streamFields(out)["format_format_name"]?.contains("mp4") == true)
    #expect(
      folder.listing.filter { $0.hasPrefix("clip") || $0.hasPrefix(".") } == ["clip.mp4", "clip.mp4.timestamps.jsonl"],
      "\(folder.listing)")
  }

  @Test func ctrlCWhileRecordingAnMP4LeavesAFileThatPlaysWithEveryKeptFrame() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let out = folder.file("session.mp4")
    let eventsPath = folder.file("events.jsonl")
    let launched = try Launched(
      [
        "run", "examples/image-quality.lua", "--input", recording, "--realtime", "--set",
        "image_quality.min_sharpness=0.99", "--record", out, "--events", eventsPath, "--quiet",
      ], folder: folder)
    let deadline = Date().addingTimeInterval(120)
    while launched.isRunning && Date() < deadline && !folder.listing.contains(where: { $0.hasPrefix(".session.mp4") }) {
      Thread.sleep(forTimeInterval: 0.005)
    }
    // Part of the recording is in, not all of it (it lasts 2.4 s at its own pace).
    Thread.sleep(forTimeInterval: 0.8)
    #expect(launched.isRunning, "the run ended before it could be interrupted")
    launched.process.interrupt()
    let outcome = launched.wait()
    #expect(outcome.status == 130, "\(outcome)")
    let end = try result(events(eventsPath))
    #expect(end["reason"] == "interrupted")
    let frames = try #require(end["outputs"]?["recording"]?["frames"]?.integerValue, "\(end)")
    #expect(frames > 0 && frames < 72, "\(end)")
    #expect(try VideoClips.frameTimes(out).count == Int(frames))
    #expect(try VideoClips.streamFields(out)["streams_stream_0_codec_name"] == "h264")
    #expect(folder.listing.filter { $0.hasPrefix(".") }.isEmpty, "\(folder.listing)")
  }
}
