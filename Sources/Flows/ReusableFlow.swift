import Diagnostics
import Logging

/// A flow loaded once for many sessions that run one after another (an
/// evaluation's sessions at one settings point). Each session takes the
/// flow as it was right after loading — its globals, modules, upvalues,
/// settings and random seed — by copying the Lua state's memory back,
/// instead of creating a state and running the step library and the flow
/// again. What one session's steps change is gone for the next.
public final class ReusableFlow {
  public let options: FlowOptions
  private let logger: Logger
  private var loaded: LoadedFlow
  /// Sessions that took the flow as loaded, and loads made (1, and one
  /// more each time a session's state outgrew its memory region).
  public private(set) var reuses = 0
  public private(set) var loads = 1

  /// Nil when the flow does not load without a problem, or its state
  /// cannot be kept (no memory cap): each session then loads the flow
  /// itself, and reports what it finds.
  public init?(_ options: FlowOptions, logger: Logger) {
    guard let loaded = Self.load(options, logger: logger) else { return nil }
    self.options = options
    self.logger = logger
    self.loaded = loaded
  }

  /// The flow as loaded, for the next session; the flow handed out before
  /// must be done with, since they share one Lua state. When the last
  /// session's Lua memory outgrew its region, the flow is loaded again; nil
  /// when that load fails (its file changed on disk, say): the session
  /// loads it itself and reports why.
  public func next() -> LoadedFlow? {
    if !loaded.vm.restore() {
      // The last session's memory outgrew the region: start from a new state.
      guard let again = Self.load(options, logger: logger) else { return nil }
      loaded = again
      loads += 1
    }
    reuses += 1
    return loaded.withFreshHost()
  }

  private static func load(_ options: FlowOptions, logger: Logger) -> LoadedFlow? {
    var problems: [Diagnostic] = []
    var traceback: String?
    guard
      let flow = try? FlowLoader.load(
        options, logger: logger, problems: &problems, traceback: &traceback, restorable: true),
      problems.isEmpty, flow.vm.snapshot()
    else { return nil }
    return flow
  }
}
