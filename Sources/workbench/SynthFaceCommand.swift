import ArgumentParser
import Diagnostics
import FaceScenes

struct SynthFaceCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "face",
    abstract: "Write the measurement trace of a face scene: turns, nods, blinks, faces that come and go.",
    discussion: """
      The schedule (JSON, docs/synth.md) gives keyframes of what the face does (count, size, \
      position, yaw, pitch, roll, how open each eye is, smile, the quality scores) and the \
      blinks. The trace has what the face estimator reports, in its schema, with its noise \
      (landmark jitter, eye aspect ratio noise, frames where it loses the face): a flow tested \
      on it behaves as on a camera. Run a flow on it with --input.

      Examples:
        workbench synth face --schedule examples/synth/face-nod.json --out nod.jsonl
        workbench run examples/liveness-random.lua --input nod.jsonl
      """)

  @Option(name: .long, help: ArgumentHelp("The schedule (JSON).", valueName: "file"))
  var schedule: String

  @Option(name: .long, help: ArgumentHelp("The trace to write.", valueName: "file.jsonl"))
  var out: String

  @Option(name: .long, help: ArgumentHelp("Frames per second.", valueName: "fps"))
  var fps: Double = 30

  @Option(name: .long, help: ArgumentHelp("Frame size, for the face box in pixels.", valueName: "WxH"))
  var size: String = "1280x720"

  @Option(name: .long, help: ArgumentHelp("Chooses the noise.", valueName: "n"))
  var seed: UInt64 = 1

  func validate() throws {
    guard let dimensions = SizeText.parse(size), dimensions.width >= 16, dimensions.height >= 16,
      dimensions.width <= 7680, dimensions.height <= 4320
    else { throw ValidationError("--size takes WIDTHxHEIGHT between 16x16 and 7680x4320, e.g. 1280x720") }
    if !(fps > 0 && fps <= 240) { throw ValidationError("--fps takes a rate above 0 and at most 240, e.g. 30") }
  }

  func run() throws {
    let dimensions = SizeText.parse(size)!
    do {
      let plan = try FaceSchedule.load(path: schedule)
      let options = FaceSceneOptions(width: dimensions.width, height: dimensions.height, fps: fps, seed: seed)
      let frames = try FaceScene(schedule: plan, options: options).write(to: out, source: schedule)
      standardError("wrote \(frames) frames of measurements to \(out)")
    } catch {
      throw fail(error)
    }
  }
}
