import TestSupport

/// What the workbench binary needs to find and recognise faces: the files
/// scripts/install-face-backend puts in the package, its workbench folder.
enum FaceBackendInstall {
  static let landmarks = FaceBackendRequirement(
    "the face backend (MediaPipe)",
    files: ["third_party/mediapipe/libmediapipe.so", "models/face_landmarker.task"].map { packageRoot + "/" + $0 })
  static let recognition = FaceBackendRequirement(
    "face recognition (dlib's models and MediaPipe)",
    files: [
      "third_party/mediapipe/libmediapipe.so", "models/face_landmarker.task",
      "models/dlib_face_recognition_resnet_model_v1.dat", "models/shape_predictor_5_face_landmarks.dat",
    ].map { packageRoot + "/" + $0 })
}
