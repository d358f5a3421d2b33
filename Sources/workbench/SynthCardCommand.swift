import ArgumentParser
import CardScenes
import Diagnostics

struct SynthCardCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "card",
    abstract: "Render an ID card moving over a cluttered table into an MJPEG AVI, with its ground truth.",
    discussion: """
      The schedule (JSON, docs/synth.md) gives keyframes of the card's tilt, roll, distance, \
      position, glare and visibility. Writes FILE.avi, FILE.avi.timestamps.jsonl and \
      FILE.avi.truth.jsonl (pose, corners, width ratio, glare of every frame).

      Examples:
        workbench synth card --schedule examples/synth/hkid-2018-pass.json --out flip.avi
        workbench synth card --schedule examples/synth/glare.json --out glare.avi --size 640x360 --seed 7
      """)

  @Option(name: .long, help: ArgumentHelp("The schedule (JSON).", valueName: "file"))
  var schedule: String

  @Option(name: .long, help: ArgumentHelp("The AVI to write.", valueName: "file.avi"))
  var out: String

  @Option(name: .long, help: ArgumentHelp("Frames per second.", valueName: "fps"))
  var fps: Double = 30

  @Option(name: .long, help: ArgumentHelp("Frame size.", valueName: "WxH"))
  var size: String = "1280x720"

  @Option(
    name: .long,
    help: ArgumentHelp("Focal length in pixels (default: a 60° horizontal field of view).", valueName: "px"))
  var focal: Double?

  @Option(name: .long, help: ArgumentHelp("Chooses the background and the noise.", valueName: "n"))
  var seed: UInt64 = 1

  @Option(
    name: .long,
    help: ArgumentHelp("A JPEG of a card front to use instead of the built-in design.", valueName: "image.jpg"))
  var texture: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "A JPEG photo of a face printed as the built-in design's portrait (cropped about its centre to 3:4).",
      valueName: "image.jpg"))
  var portrait: String?

  func validate() throws {
    guard let dimensions = SizeText.parse(size), dimensions.width >= 16, dimensions.height >= 16,
      dimensions.width <= 7680, dimensions.height <= 4320
    else { throw ValidationError("--size takes WIDTHxHEIGHT between 16x16 and 7680x4320, e.g. 1280x720") }
    if !(fps > 0 && fps <= 240) { throw ValidationError("--fps takes a rate above 0 and at most 240, e.g. 30") }
    if texture != nil && portrait != nil {
      throw ValidationError(
        "give --texture (a whole card front) or --portrait (a photo on the built-in design), not both")
    }
    if let focal, !(focal > 1 && focal.isFinite) {
      throw ValidationError("--focal takes a length in pixels, e.g. 1100")
    }
  }

  func run() throws {
    let dimensions = SizeText.parse(size)!
    do {
      let plan = try CardSchedule.load(path: schedule)
      var design = try texture.map { (path) throws(WorkbenchError) in try CardTexture.load(path: path) }
      if let portrait { design = try CardTexture.load(portrait: portrait) }
      let options = CardSceneOptions(
        width: dimensions.width, height: dimensions.height, fps: fps, focal: focal, seed: seed)
      let frames = try CardScene(schedule: plan, options: options, texture: design).write(to: out)
      standardError("wrote \(frames) frames to \(out) and its truth to \(CardScene.truthPath(forRecording: out))")
    } catch {
      throw fail(error)
    }
  }
}
