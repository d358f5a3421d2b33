import Estimators
import Foundation
import Logging
import Settings

/// Where the face backend is installed and how to make the face estimator
/// from settings: what a run wires in next to `BuiltinEstimators.all()`.
public enum FaceEstimators {
  /// The library, relative to the workbench folder (scripts/install-face-backend).
  public static let defaultLibraryPath = "third_party/mediapipe/libmediapipe.so"
  /// The model, relative to the workbench folder.
  public static let defaultModelPath = "models/face_landmarker.task"
  public static let libraryVariable = "WORKBENCH_MEDIAPIPE_LIB"
  public static let modelVariable = "WORKBENCH_FACE_MODEL"
  public static let installCommand = WorkbenchHome.faceBackendInstallCommand

  /// The settings of the face estimator (docs/face.md).
  public static let settingDeclarations: [SettingDeclaration] = [
    .string(
      "face.library", default: "",
      doc: "libmediapipe.so; empty: $\(libraryVariable), else \(defaultLibraryPath) in the workbench folder"),
    .string(
      "face.model", default: "",
      doc: "face_landmarker.task; empty: $\(modelVariable), else \(defaultModelPath) in the workbench folder"),
    .integer("face.max_faces", default: 5, minimum: 1, maximum: 20, doc: "The most faces reported per frame"),
    .number(
      "face.min_detection_confidence", default: 0.5, minimum: 0, maximum: 1,
      doc: "Lowest face detector score that counts as a face"),
    .number(
      "face.min_presence_confidence", default: 0.5, minimum: 0, maximum: 1,
      doc: "Lowest landmark model score that keeps a face"),
    .number(
      "face.min_tracking_confidence", default: 0.5, minimum: 0, maximum: 1,
      doc: "Lowest score to keep tracking a face from the last frame instead of detecting again"),
    .choice(
      "face.tile_search", ["off", "2x2", "3x3"], default: "off",
      doc: "Also search overlapping tiles for faces too small for the full frame (each tile costs a detection)"),
    .boolean(
      "face.mirror", default: false,
      doc: "The frames are mirrored (a selfie preview): flip yaw and roll and swap the eyes"),
    .boolean(
      "face.full_resolution", default: false,
      doc: "Give the face model frames at full size instead of scaled to at least 640 pixels wide (slower)"),
  ]

  /// The options for a run: the settings (when given), then the
  /// environment, then the files under `home` (the workbench folder).
  /// Relative paths in settings or the environment are taken from the
  /// current folder.
  public static func options(
    home: WorkbenchHome, settings: ResolvedSettings? = nil,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> FaceEstimatorOptions {
    options(dataFolder: home.root, library: home.faceLibrary, settings: settings, environment: environment)
  }

  /// The options for a checkout at `home`.
  public static func options(
    home: String, settings: ResolvedSettings? = nil,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> FaceEstimatorOptions {
    options(
      dataFolder: home, library: home + "/" + defaultLibraryPath, settings: settings, environment: environment)
  }

  private static func options(
    dataFolder: String, library: String, settings: ResolvedSettings?, environment: [String: String]
  ) -> FaceEstimatorOptions {
    func path(_ setting: String, _ variable: String, _ fallback: String) -> String {
      InstalledFile.path(
        setting: setting, variable: variable, fallback: fallback, home: dataFolder, settings: settings,
        environment: environment)
    }
    let libraryPath = InstalledFile.path(
      setting: "face.library", variable: libraryVariable, fallbackPath: library, settings: settings,
      environment: environment)
    var backend = MediaPipeFaceOptions(
      libraryPath: libraryPath, modelPath: path("face.model", modelVariable, defaultModelPath))
    if let value = settings?.integer("face.max_faces") { backend.maxFaces = Int(value) }
    if let value = settings?.number("face.min_detection_confidence") { backend.minDetectionConfidence = Float(value) }
    if let value = settings?.number("face.min_presence_confidence") { backend.minPresenceConfidence = Float(value) }
    if let value = settings?.number("face.min_tracking_confidence") { backend.minTrackingConfidence = Float(value) }
    switch settings?.string("face.tile_search") {
    case "2x2": backend.searchTiles = 2
    case "3x3": backend.searchTiles = 3
    default: backend.searchTiles = 0
    }
    var options = FaceEstimatorOptions(backend: backend, mirror: settings?.boolean("face.mirror") ?? false)
    options.fullResolution = settings?.boolean("face.full_resolution") ?? false
    return options
  }

  /// The face estimator for a run. Cheap: the library and model load when
  /// a run that needs `face.*` prepares it, and a missing one is reported
  /// then (as an `EstimatorError` whose help names scripts/install-face-backend).
  /// Throws for options out of range.
  public static func make(
    home: WorkbenchHome, settings: ResolvedSettings? = nil,
    environment: [String: String] = ProcessInfo.processInfo.environment,
    logger: Logger = Logger(label: "workbench.face")
  ) throws(EstimatorError) -> [any Estimator] {
    try make(options: options(home: home, settings: settings, environment: environment), logger: logger)
  }

  private static func make(options: FaceEstimatorOptions, logger: Logger) throws(EstimatorError) -> [any Estimator] {
    do {
      try options.backend.validate()
    } catch {
      throw EstimatorError(estimator: FaceEstimator.name, error.message, help: error.help)
    }
    return [FaceEstimator(options: options, logger: logger)]
  }

  /// Whether both files are where `options` says (not whether they load):
  /// for a run that starts every estimator (a flow that does not say what
  /// it reads) to leave the face estimator out instead of failing.
  public static func isInstalled(_ options: FaceEstimatorOptions) -> Bool {
    FileManager.default.fileExists(atPath: options.backend.libraryPath)
      && FileManager.default.fileExists(atPath: options.backend.modelPath)
  }

  /// Opens MediaPipe's library at `path` as a run would (kept open for the
  /// process), without a model: whether it and the libraries it needs load.
  public static func loadLibrary(path: String, logger: Logger = Logger(label: "workbench.face"))
    throws(FaceBackendError)
  {
    _ = try MediaPipeLibrary.load(path: path, logger: logger)
  }
}
