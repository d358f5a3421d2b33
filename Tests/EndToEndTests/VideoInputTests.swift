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
