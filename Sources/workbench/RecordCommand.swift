import ArgumentParser
import Diagnostics
import Flows
import Licensing
import Session

struct RecordCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "record",
    abstract: "Record frames from a camera (or copy a recording) into an MJPEG AVI or an H.264 video.",
    discussion: """
      Writes FILE and FILE.timestamps.jsonl (the time of every frame and the device). A name \
      ending in .mp4, .mov, .mkv or .m4v is H.264 video in that container (as LUNA ID records), \
      encoded beside the capture so that a camera never waits (frames the encoder cannot keep \
      up with are dropped and counted); any other name is an MJPEG AVI, whose JPEG frames are \
      kept byte for byte. The files are complete after Ctrl-C, after the camera is unplugged \
      and after an error.

      Examples:
        workbench record --camera /dev/video0 --out session.avi --seconds 10
        workbench record --camera /dev/video0 --size 1280x720 --fps 30 --out session.avi
        workbench record --input frames/ --fps 15 --out clip.avi
        workbench record --camera /dev/video0 --out session.mp4 --seconds 10
      """)

  @Option(name: .long, help: ArgumentHelp("A recording to copy instead of a camera.", valueName: "path"))
  var input: String?

  @Option(
    name: .long,
    help: ArgumentHelp("The recording to write: .avi (MJPEG), or .mp4, .mov, .mkv (H.264).", valueName: "file"))
  var out: String

  @OptionGroup var frameSource: CameraOptions

  @Option(name: .long, help: ArgumentHelp("Stop after this many seconds.", valueName: "s"))
  var seconds: Double?

  @Option(name: .long, help: ArgumentHelp("Stop after this many frames.", valueName: "n"))
  var frames: Int?

  @OptionGroup var license: LicenseOptions
  @OptionGroup var logging: LoggingOptions

  func validate() throws {
    try frameSource.validate(input: input)
    if let seconds, !(seconds > 0) { throw ValidationError("--seconds takes a time above 0") }
    if let frames, frames < 1 { throw ValidationError("--frames takes a count of at least 1") }
  }

  func run() throws {
    do { _ = try logging.bootstrap() } catch { throw fail(error) }
    // Checked before the camera opens: recording is a licensed feature.
    do { _ = try license.gate(settingsDirectory: nil).check(features: [LicenseFeature.record]) } catch {
      throw fail(error)
    }
    var options = RecordSession.Options(input: frameSource.spec(input: input), outputPath: out)
    options.recordingFPS = frameSource.recordingFPS
    options.maximumFrames = frames
    options.maximumSeconds = seconds
    let outcome = RecordSession.run(options)
    if !outcome.problems.isEmpty { DiagnosticPrinter.print(WorkbenchError(outcome.status, outcome.problems)) }
    let dropped = outcome.dropped > 0 ? ", \(outcome.dropped) dropped while the encoder was behind" : ""
    standardError("recorded \(outcome.frames) frames to \(out) (\(outcome.ending)\(dropped))")
    if outcome.status != .passed { throw ExitCode(outcome.status.rawValue) }
  }
}
