import Capture
import Logging
import Session

extension RunSession {
  /// A session with workbench's own estimators and its face identity (the
  /// gallery): what `run`, `test`, the preview and the benchmarks open.
  public convenience init(
    _ options: RunOptions, logger: Logger, openFrames: @escaping SourceOpener = FrameSources.open
  ) {
    self.init(
      options, logger: logger, estimators: StandardEstimators(), identity: RunIdentity.make, openFrames: openFrames)
  }

  /// A session with workbench's face identity and other estimators (a
  /// test's, or ones that count what they measure).
  public convenience init(_ options: RunOptions, logger: Logger, measuringWith estimators: any EstimatorProvider) {
    self.init(options, logger: logger, estimators: estimators, identity: RunIdentity.make)
  }

  /// One whole run with workbench's own parts: open, every frame, close.
  public static func run(_ options: RunOptions, logger: Logger) -> RunOutcome {
    RunSession(options, logger: logger).run()
  }
}
