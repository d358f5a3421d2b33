import Estimators
import Flows
import Logging
import Settings

/// Where a session's estimators come from: the composition that builds
/// workbench's own (face, card, recognition, plugins) gives one, and a test
/// can give its doubles. The session never names an estimator itself, so
/// it links none of their libraries.
public protocol EstimatorProvider {
  /// The estimators a run of `flow` can use, when it reads what the flow
  /// declares and `also`.
  func estimators(for flow: LoadedFlow, also: [String], logger: Logger) -> [any Estimator]
}

/// What the face identity of a run (descriptors, the gallery) sees of it.
public struct IdentityContext {
  /// The run's estimators, in the order they run.
  public let estimators: [any Estimator]
  /// The frame being processed, as the estimators saw it.
  public let currentFrame: () -> DecodedFrame
  public let settings: ResolvedSettings
  /// With --artifacts: where the faces of each comparison are kept.
  public let artifacts: ArtifactFolder?
}

/// Makes the identity of a run whose input has frames; nil when the run
/// cannot tell faces apart (no descriptor estimator).
public typealias IdentityMaker = (IdentityContext) -> (any FaceIdentity)?
