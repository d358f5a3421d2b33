import Capture
import Diagnostics
import Flows
import Measurements
import Settings

/// Everything `workbench run` needs.
public struct RunOptions: Sendable {
  public var flow: FlowOptions
  public var input: InputSpec
  /// Frame rate of a recording that does not say (JPEG folders, MJPEG).
  public var recordingFPS: Double?
  public var eventsPath: String?
  public var traceOutPath: String?
  /// Once the flow decides, the rest of the recording is measured into
  /// `traceOutPath` all the same, so that the trace can replay the whole
  /// input for other settings (`workbench eval`'s cache).
  public var traceToEndOfInput = false
  /// The input trace's lines, read before: an evaluation replays one trace
  /// at many settings and parses it once.
  public var readTrace: ReadTrace?
  public var showStatusLine: Bool
  /// Pace the frames to the wall clock by their times, as a live session would.
  public var realtime = false
  /// Keep the frames the flow saw in an MJPEG AVI (with a timestamps sidecar).
  public var recordPath: String?
  public var recordPolicy = RecordPolicy.always
  /// Called after the flow loads and before the input opens, with the
  /// features the run needs (``RunAssembly/requiredFeatures(flowNeeds:estimators:recording:)``);
  /// it throws to stop the run (a license that does not hold). Nil: no check.
  public var licenseCheck: (@Sendable ([String]) throws(WorkbenchError) -> Void)?
  /// The folder for captured images and the signature (`--artifacts`).
  public var artifactsPath: String?

  public init(flow: FlowOptions, input: InputSpec) {
    self.flow = flow
    self.input = input
    showStatusLine = false
  }
}

/// The outcome of a whole run, for the command to print.
public struct RunOutcome: Sendable {
  public var status: ExitStatus
  public var result: FlowResult?
  public var flowName: String?
  /// Problems to print (script errors, bad input, unwritable outputs).
  public var problems: [Diagnostic]
  public var detail: String?
  public var eventsToStandardOutput: Bool
  /// The run's effective settings, once the flow loaded.
  public var settings: ResolvedSettings?
}

/// Why a run ended other than by its flow deciding: the one list every
/// early exit of ``RunSession`` goes through (``RunSession/end(_:)``).
public enum RunEnding: Sendable {
  /// An output could not be opened (`--artifacts`, `--record`, `--trace-out`).
  case outputFailed(WorkbenchError)
  /// The flow did not load (or loading it was interrupted).
  case flowNotLoaded(WorkbenchError)
  /// The license does not allow this run.
  case licenseRefused(WorkbenchError)
  /// The input failed: unreadable, or a camera that went away.
  case inputFailed(WorkbenchError)
  /// Ctrl-C or SIGTERM, by the signal's name.
  case interrupted(String)
  /// The input ran out before the flow finished.
  case endOfInput
  /// Whoever drives the session closed it before the flow finished.
  case closed
}
