import CardEstimation
import Diagnostics
import Estimators
import FaceEstimation
import FaceRecognition
import Flows
import LivenessService
import Logging
import MotionCues
import PresentationAttack
import Session
import Settings

/// The estimators workbench builds in: the quality scores, the card, the
/// face (MediaPipe) with its capture crop and descriptors (dlib), and the
/// plugins'. What every command that runs a flow gives its session.
public struct StandardEstimators: EstimatorProvider {
  public init() {}

  /// The estimators a run of `flow` can use, when it reads what the flow
  /// declares and `also` (what the record policy reads).
  public func estimators(for flow: LoadedFlow, also: [String], logger: Logger) -> [any Estimator] {
    Self.availableEstimators(flow.home, settings: flow.settings, wanted: flow.declaredNeeds + also, logger: logger)
  }

  /// Built-in estimators, then the plugins' (a plugin that cannot load is
  /// skipped with a warning; the run goes on).
  ///
  /// The face estimator is among them when its backend is installed, or
  /// when the flow reads face measurements (then a missing backend is an
  /// error that names the command that installs it); a flow that does not
  /// say what it reads runs without it when it is not installed.
  public static func availableEstimators(
    _ home: WorkbenchHome, settings: ResolvedSettings? = nil, wanted: [String]? = nil, logger: Logger
  ) -> [any Estimator] {
    let (plugins, reports) = PluginLoader.load(
      directory: home.nativePlugins, display: WorkbenchHome.display(home.nativePlugins))
    for report in reports {
      if case .skipped = report.outcome { logger.warning("plugin \(report)") }
    }
    var face: [any Estimator] = []
    let options = FaceEstimators.options(home: home, settings: settings)
    let readsFace = (wanted ?? []).contains { $0 == "face" || $0.hasPrefix("face.") }
    if readsFace || FaceEstimators.isInstalled(options) {
      do {
        face = try FaceEstimators.make(home: home, settings: settings, logger: logger).flatMap {
          estimator -> [any Estimator] in
          guard let estimator = estimator as? FaceEstimator else { return [estimator] }
          return [FaceCaptureEstimator(estimator), FaceMotionEstimator(face: estimator, settings: settings)]
            + descriptorEstimator(estimator, home, settings: settings, wanted: wanted, logger: logger)
            + livenessEstimator(estimator, settings: settings, wanted: wanted, logger: logger)
        }
      } catch {
        logger.warning("\(error)\(error.help.map { " (\($0))" } ?? "")")
      }
    } else {
      logger.debug("the face estimator is not installed (\(FaceEstimators.installCommand)); runs go on without it")
    }
    let card = CardEstimatorSetup.make(
      settings: settings, face: FaceEstimators.isInstalled(options) ? options : nil, logger: logger)
    return BuiltinEstimators.all() + card + face + plugins
  }

  /// The presentation-attack estimator beside `face`: the service when
  /// `pad.url` is set, else the model when `pad.model` is set (then every
  /// run that reads faces also has face.liveness), or when a step needs
  /// `face.liveness` (a missing model is then the run's error).
  static func livenessEstimator(
    _ face: FaceEstimator, settings: ResolvedSettings?, wanted: [String]?, logger: Logger
  ) -> [any Estimator] {
    if LivenessServiceEstimator.url(settings) != nil {
      return [LivenessServiceEstimator(settings: settings, logger: logger)]
    }
    guard PassiveLivenessEstimator.configuration(settings) != nil || PassiveLivenessEstimator.isWanted(wanted) else {
      return []
    }
    return [PassiveLivenessEstimator(face: face, settings: settings, logger: logger)]
  }

  /// The descriptor estimator beside `face`: when a step needs
  /// `face.descriptor` (a missing model is then the run's error), or when
  /// the flow does not say what it reads and the models are installed.
  static func descriptorEstimator(
    _ face: FaceEstimator, _ home: WorkbenchHome, settings: ResolvedSettings?, wanted: [String]?, logger: Logger
  ) -> [any Estimator] {
    let models = FaceRecognitionModels.resolve(home: home.root, settings: settings)
    let asked = wanted?.contains { $0 == "face.descriptor" } ?? models.isInstalled
    guard asked else { return [] }
    let alignment = settings?.string("face.alignment").flatMap(FaceAlignment.init(rawValue:)) ?? .mesh
    let blasThreads = Int(settings?.integer("face.blas_threads") ?? 1)
    return [
      FaceDescriptorEstimator(
        face: face, models: models, alignment: alignment, blasThreads: blasThreads, logger: logger)
    ]
  }
}
