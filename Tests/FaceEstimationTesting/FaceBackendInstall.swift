import FaceEstimation
import TestSupport

/// The installed face backend (scripts/install-face-backend puts it in the
/// package), or the files the environment names.
public enum FaceBackendInstall {
  public static let options = FaceEstimators.options(home: packageRoot())

  /// For `.requires(FaceBackendInstall.requirement)` on the tests that run MediaPipe.
  public static let requirement = FaceBackendRequirement(
    "the face backend (MediaPipe)", files: [options.backend.libraryPath, options.backend.modelPath])
}
