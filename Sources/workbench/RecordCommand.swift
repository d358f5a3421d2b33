import ArgumentParser
import Diagnostics
import Flows

struct RecordCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "record",
    abstract: "Record frames from a camera (or copy a recording) into an MJPEG AVI.",
    discussion: """
      Writes FILE.avi and FILE.avi.timestamps.jsonl (the time of every frame and the device). \
      The files are complete after Ctrl-C, after the camera is unplugged and after an error.

      Examples:
        workbench record --camera /dev/video0 --out session.avi --seconds 10
        workbench record --camera /dev/video0 --size 1280x720 --fps 30 --out session.avi
        workbench record --input frames/ --fps 15 --out clip.avi
      """)

  @Option(name: .long, help: ArgumentHelp("A V4L2 camera, e.g. /dev/video0.", valueName: "device"))
  var camera: String?

  @Option(name: .long, help: ArgumentHelp("A recording to re-encode instead of a camera.", valueName: "path"))
  var input: String?

  @Option(name: .long, help: ArgumentHelp("The AVI to write.", valueName: "file.avi"))
  var out: String

  @Option(name: .long, help: ArgumentHelp("Camera frame size, e.g. 1280x720.", valueName: "WxH"))
  var size: String?

  @Option(
    name: .long,
    help: ArgumentHelp("Camera frame rate, or the rate of a recording that does not say.", valueName: "fps"))
  var fps: Double?

  @Option(name: .long, help: ArgumentHelp("Stop after this many seconds.", valueName: "s"))
  var seconds: Double?

  @Option(name: .long, help: ArgumentHelp("Stop after this many frames.", valueName: "n"))
  var frames: Int?

  @OptionGroup var logging: LoggingOptions

  func validate() throws {
    guard (input == nil) != (camera == nil) else {
      throw ValidationError("give the frames with exactly one of --camera DEVICE or --input PATH")
    }
    if size != nil && camera == nil { throw ValidationError("--size goes with --camera") }
    if let size, SizeText.parse(size) == nil { throw ValidationError("--size takes WIDTHxHEIGHT, e.g. 1280x720") }
    if let fps, !(fps > 0 && fps <= 1000) { throw ValidationError("--fps takes a rate above 0, e.g. 30") }
    if let seconds, !(seconds > 0) { throw ValidationError("--seconds takes a time above 0") }
    if let frames, frames < 1 { throw ValidationError("--frames takes a count of at least 1") }
  }

  func run() throws {
    do { _ = try logging.bootstrap() } catch { throw fail(error) }
    let spec: InputSpec
    if let camera {
      let dimensions = size.flatMap(SizeText.parse)
      spec = .camera(device: camera, width: dimensions?.width, height: dimensions?.height, fps: fps)
    } else {
      spec = .file(input ?? "")
    }
    var options = RecordSession.Options(input: spec, outputPath: out)
    options.recordingFPS = camera == nil ? fps : nil
    options.maximumFrames = frames
    options.maximumSeconds = seconds
    let outcome = RecordSession.run(options)
    if !outcome.problems.isEmpty { DiagnosticPrinter.print(WorkbenchError(outcome.status, outcome.problems)) }
    standardError("recorded \(outcome.frames) frames to \(out) (\(outcome.ending))")
    if outcome.status != .passed { throw ExitCode(outcome.status.rawValue) }
  }
}

/// "1280x720" → (1280, 720).
enum SizeText {
  static func parse(_ text: String) -> (width: Int, height: Int)? {
    let parts = text.lowercased().split(separator: "x")
    guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width > 0, height > 0 else {
      return nil
    }
    return (width, height)
  }
}
