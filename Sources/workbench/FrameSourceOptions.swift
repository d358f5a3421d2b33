import ArgumentParser
import Flows
import Session

/// Where frames come from: `--camera` with `--size`/`--fps`, or `--input`.
/// `run` and `record` share it; `run`'s --input also takes traces.
struct CameraOptions: ParsableArguments {
  @Option(
    name: .long,
    help: ArgumentHelp("A V4L2 camera, e.g. /dev/video0 ('workbench devices' lists them).", valueName: "device"))
  var camera: String?

  @Option(name: .long, help: ArgumentHelp("Camera frame size, e.g. 1280x720.", valueName: "WxH"))
  var size: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Camera frame rate, or the rate of a recording that does not say (default 30).", valueName: "fps"))
  var fps: Double?

  /// Checks the options against `input`, the command's --input.
  func validate(input: String?) throws {
    guard (input == nil) != (camera == nil) else {
      throw ValidationError("give the frames with exactly one of --input PATH or --camera DEVICE")
    }
    if size != nil && camera == nil { throw ValidationError("--size goes with --camera") }
    if let size, SizeText.parse(size) == nil { throw ValidationError("--size takes WIDTHxHEIGHT, e.g. 1280x720") }
    if let fps, !(fps > 0 && fps <= 1000) { throw ValidationError("--fps takes a rate above 0, e.g. 30") }
  }

  func spec(input: String?) -> InputSpec {
    guard let camera else { return .file(input ?? "") }
    let dimensions = size.flatMap(SizeText.parse)
    return .camera(device: camera, width: dimensions?.width, height: dimensions?.height, fps: fps)
  }

  /// The rate given for a recording that does not say its own.
  var recordingFPS: Double? { camera == nil ? fps : nil }
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
