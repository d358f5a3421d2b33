import CardEstimation
import FaceEstimation
import FaceRecognition
import Flows
import Gallery
import Settings

/// The settings every run has: the flow engine's and its estimators'.
/// Flows declare their own on top (wb.settings).
public enum RunSettings {
  public static let declarations: [SettingDeclaration] =
    FlowSettings.engine + FaceEstimators.settingDeclarations + FaceRecognitionModels.settingDeclarations
    + GallerySettings.declarations + CardEstimatorSetup.settingDeclarations

  /// Options for loading the flow at `path` in a run, `check` or `settings`.
  public static func flowOptions(_ path: String) -> FlowOptions {
    FlowOptions(flowPath: path, settingDeclarations: declarations)
  }
}

extension FlowRunner {
  /// Input notes become events at the frame they concern.
  func note(_ note: InputNote) {
    switch note {
    case .skipped(let index, let t, let reason):
      frameSkipped(index: index, t: t, reason: reason)
    case .dropped(let count, let total, let t, let index):
      framesDropped(count: count, total: total, t: t, index: index)
    }
  }
}
