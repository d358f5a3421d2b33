import CardScenes
import Diagnostics
import FaceScenes
import FileSystem
import Foundation
import Randomness

/// Synthetic card scenes for scenarios: rendered once per schedule and
/// options, then kept in a cache, since a suite runs many faults over the
/// same scene.
public enum SyntheticScenes {
  /// Renders `schedule` into the recording at `path` (MJPEG AVI with its
  /// timestamps and truth sidecars), as `workbench synth card` does.
  public static func render(schedule: String, options: Scenario.SynthOptions, to path: String) throws(WorkbenchError) {
    let plan = try CardSchedule.load(path: schedule)
    let sceneOptions = CardSceneOptions(
      width: options.width, height: options.height, fps: options.fps, focal: nil, seed: options.seed)
    _ = try CardScene(schedule: plan, options: sceneOptions, texture: nil).write(to: path)
  }

  /// Whether the schedule at `path` is a face scene's (a trace is measured
  /// from it) rather than a card's (a recording is rendered).
  public static func isFaceSchedule(_ path: String) -> Bool {
    guard let data = FileManager.default.contents(atPath: path) else { return false }
    return FaceSchedule.describesFace(String(decoding: data, as: UTF8.self))
  }

  /// Writes the measurement trace of a face scene, as `workbench synth face` does.
  public static func measureFace(schedule: String, options: Scenario.SynthOptions, to path: String)
    throws(WorkbenchError)
  {
    let plan = try FaceSchedule.load(path: schedule)
    let (width, height) = options.sizeGiven ? (options.width, options.height) : (1280, 720)
    let sceneOptions = FaceSceneOptions(width: width, height: height, fps: options.fps, seed: options.seed)
    try FaceScene(schedule: plan, options: sceneOptions).write(to: path, source: schedule)
  }

  /// The cache folder: `WORKBENCH_SYNTH_CACHE`, else one in the temporary folder.
  static var cacheFolder: String {
    if let folder = ProcessInfo.processInfo.environment["WORKBENCH_SYNTH_CACHE"], !folder.isEmpty { return folder }
    return FileManager.default.temporaryDirectory.appendingPathComponent("workbench-synth-cache").path
  }

  /// The recording of `schedule` rendered with `options`: from the cache
  /// when the same schedule bytes were rendered the same way before,
  /// otherwise rendered now by `render` (into a temporary name, renamed
  /// when complete, so parallel workers never read half a file).
  static func cachedRecording(
    schedule: String, options: Scenario.SynthOptions, suffix: String = ".avi",
    render: (String) throws(WorkbenchError) -> Void
  ) throws(WorkbenchError) -> String {
    guard let bytes = FileManager.default.contents(atPath: schedule) else {
      throw WorkbenchError(
        .usage, "no such schedule", at: SourceLocation(file: schedule), help: "give a schedule file (docs/synth.md)")
    }
    // What the output depends on besides the schedule: the options, the
    // kind (by its file suffix) and, for face traces, the generator's version.
    let generator = suffix == ".avi" ? "" : "\(suffix) \(options.sizeGiven) v\(FaceScene.version)"
    let key =
      Array(bytes) + Array("\(options.width)x\(options.height)@\(options.fps)#\(options.seed)\(generator)".utf8)
    let hash = StableHash.of(key)
    let folder = cacheFolder
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let name = String(hash, radix: 16)
    let path = folder + "/" + name + suffix
    if FileManager.default.fileExists(atPath: path) { return path }
    let scratch = folder + "/" + name + ".\(getpid()).\(UUID().uuidString.prefix(8))"
    try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    let rendered = scratch + "/scene" + suffix
    try render(rendered)
    // The sidecars first: the recording's name appearing is the sign that it is complete.
    for suffix in [".timestamps.jsonl", ".truth.jsonl"] where FileManager.default.fileExists(atPath: rendered + suffix)
    {
      try? AtomicFile.move(rendered + suffix, over: path + suffix)
    }
    do {
      try AtomicFile.move(rendered, over: path)
    } catch {
      throw WorkbenchError(.usage, "cannot keep the rendered scene: \(error.reason)", at: SourceLocation(file: path))
    }
    return path
  }
}
