import Foundation
import Settings

/// Where the recognition models are: the settings, then the environment,
/// then `models/` in the workbench folder, where
/// scripts/install-face-backend puts them.
public struct FaceRecognitionModels: Sendable, Equatable {
  public static let defaultRecognitionModel = "models/dlib_face_recognition_resnet_model_v1.dat"
  public static let defaultShapeModel = "models/shape_predictor_5_face_landmarks.dat"
  public static let recognitionVariable = "WORKBENCH_FACE_RECOGNITION_MODEL"
  public static let shapeVariable = "WORKBENCH_FACE_SHAPE_MODEL"
  public static let installCommand = WorkbenchHome.faceBackendInstallCommand

  public var recognitionModel: String
  public var shapeModel: String

  public init(recognitionModel: String, shapeModel: String) {
    self.recognitionModel = recognitionModel
    self.shapeModel = shapeModel
  }

  /// The settings of face recognition (docs/gallery.md).
  public static let settingDeclarations: [SettingDeclaration] = [
    .string(
      "face.recognition_model", default: "",
      doc:
        "dlib_face_recognition_resnet_model_v1.dat; empty: $\(recognitionVariable), else \(defaultRecognitionModel) in the workbench folder"
    ),
    .string(
      "face.shape_model", default: "",
      doc:
        "shape_predictor_5_face_landmarks.dat; empty: $\(shapeVariable), else \(defaultShapeModel) in the workbench folder"
    ),
    .integer(
      "face.blas_threads", default: 1, minimum: 0, maximum: 64,
      doc:
        "Threads OpenBLAS may use to describe a face; 1 leaves the other cores to the frame loop and the estimators; 0: OpenBLAS's own choice (OPENBLAS_NUM_THREADS, else every core)"
    ),
    .choice(
      "face.alignment", FaceAlignment.allCases.map(\.rawValue), default: FaceAlignment.mesh.rawValue,
      doc:
        "How a face is aligned before it is described: mesh (the face estimator's landmarks) or shape5 (dlib's 5-point model)"
    ),
  ]

  public static func resolve(
    home: String, settings: ResolvedSettings? = nil,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> FaceRecognitionModels {
    func path(_ setting: String, _ variable: String, _ fallback: String) -> String {
      InstalledFile.path(
        setting: setting, variable: variable, fallback: fallback, home: home, settings: settings,
        environment: environment)
    }
    return FaceRecognitionModels(
      recognitionModel: path("face.recognition_model", recognitionVariable, defaultRecognitionModel),
      shapeModel: path("face.shape_model", shapeVariable, defaultShapeModel))
  }

  public var isInstalled: Bool { Self.isFile(recognitionModel) && Self.isFile(shapeModel) }

  static func isFile(_ path: String) -> Bool {
    var isFolder: ObjCBool = false
    return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && !isFolder.boolValue
  }
}
