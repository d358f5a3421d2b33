import CardEstimation
import FaceEstimation
import FaceRecognition
import Flows
import Gallery
import LivenessService
import MotionCues
import PresentationAttack
import Session
import Settings

/// The settings every run has: the flow engine's, its outputs' and its estimators'.
/// Flows declare their own on top (wb.settings).
public enum RunSettings {
  public static let declarations: [SettingDeclaration] =
    FlowSettings.engine + RunOutputSettings.declarations + FaceEstimators.settingDeclarations
    + FaceRecognitionModels.settingDeclarations
    + GallerySettings.declarations + CardEstimatorSetup.settingDeclarations
    + PassiveLivenessEstimator.settingDeclarations + LivenessServiceEstimator.settingDeclarations
    + FaceMotionEstimator.settingDeclarations + FaceMotionEstimator.stepSettingDeclarations

  /// The settings that change what the estimators measure: a measurement
  /// kept for other settings (`workbench eval`'s cache) is kept per value of these.
  public static let estimatorDeclarations: [SettingDeclaration] =
    FaceEstimators.settingDeclarations + FaceRecognitionModels.settingDeclarations
    + CardEstimatorSetup.settingDeclarations + PassiveLivenessEstimator.settingDeclarations
    + LivenessServiceEstimator.settingDeclarations + FaceMotionEstimator.settingDeclarations

  /// Options for loading the flow at `path` in a run, `check` or `settings`.
  public static func flowOptions(_ path: String) -> FlowOptions {
    FlowOptions(flowPath: path, settingDeclarations: declarations)
  }
}
