import Diagnostics
import JSONCore

/// The reasons the engine itself ends a run with: the result record's
/// reason, the code when the flow gives none, and the plain English message
/// when no catalog has `result.<reason>`. A step may end a flow with a
/// reason of its own, and a flow may give any reason a code (`codes`).
public enum ResultReason: Sendable, CaseIterable {
  // The endings of a flow's run (FlowRunner); a run whose flow did not run
  // (Session) may end with input_error or usage_error too.
  case passed
  case stepFailed
  case stepTimeout
  case timeLimit
  case endOfInput
  case scriptError
  case limitExceeded
  case inputError
  case cameraLost
  case usageError
  case initializationFailed
  case closed
  /// Ctrl-C or SIGTERM, while the flow ran or before.
  case interrupted
  // The endings of a run whose flow did not run (Session).
  case outputError
  case flowNotLoaded
  /// The flow did not load because of its settings alone (a value out of
  /// range, an unknown key): every problem names a setting.
  case settingsError
  case licenseError

  /// The reason as the result record gives it.
  public var slug: String {
    switch self {
    case .passed: return "passed"
    case .stepFailed: return "step_failed"
    case .stepTimeout: return "step_timeout"
    case .timeLimit: return "time_limit"
    case .endOfInput: return "end_of_input"
    case .scriptError, .flowNotLoaded: return "script_error"
    case .limitExceeded: return "limit_exceeded"
    case .inputError: return "input_error"
    case .cameraLost: return "camera_lost"
    case .usageError: return "usage_error"
    case .initializationFailed: return "initialization_failed"
    case .closed: return "closed"
    case .interrupted: return "interrupted"
    case .outputError: return "output_error"
    case .settingsError: return "settings_error"
    case .licenseError: return "license_error"
    }
  }

  /// The code of a run that ends for this reason when the flow gives it none:
  /// 0 when it passed, 1 for the flow's failures, negative for the engine's.
  public var code: Int64 {
    switch self {
    case .passed: return 0
    case .stepFailed, .stepTimeout, .timeLimit, .endOfInput, .closed: return 1
    case .scriptError, .limitExceeded, .usageError, .initializationFailed, .outputError, .flowNotLoaded,
      .settingsError:
      return -2
    case .licenseError: return -3
    case .inputError, .cameraLost: return -4
    case .interrupted: return -130
    }
  }

  /// The plain English message, for a run whose catalogs have none.
  public var message: String {
    switch self {
    case .passed: return "passed"
    case .stepFailed: return "a step failed"
    case .stepTimeout: return "a step took too long"
    case .timeLimit: return "the flow took too long"
    case .endOfInput: return "the input ended before the flow finished"
    case .scriptError: return "the flow script failed"
    case .limitExceeded: return "the flow script exceeded a limit"
    case .inputError: return "the input could not be read"
    case .cameraLost: return "the camera was disconnected"
    case .usageError: return "the run could not start"
    case .initializationFailed: return "an estimator could not start"
    case .closed: return "the session was closed"
    case .interrupted: return "interrupted"
    case .outputError: return "an output could not be written"
    case .flowNotLoaded: return "the flow could not be loaded"
    case .settingsError: return "the settings are not valid"
    case .licenseError: return "the license does not allow this run"
    }
  }

  /// The messages a flow's result or intermediate reason falls back to, by
  /// slug: those of the reasons a flow's run ends with (a flow that did not
  /// load has no result of its own to name).
  static let defaultMessages: [String: String] = Dictionary(
    uniqueKeysWithValues: [
      passed, stepFailed, stepTimeout, timeLimit, endOfInput, scriptError, limitExceeded, inputError, cameraLost,
      usageError, initializationFailed, closed,
    ].map { ($0.slug, $0.message) })

  /// The fields every result record starts with, in this order.
  public static func record(success: Bool, code: Int64, reason: String, message: String, error: String?)
    -> JSONObject
  {
    var fields = JSONObject()
    fields["success"] = .bool(success)
    fields["code"] = .integer(code)
    fields["reason"] = .string(reason)
    fields["message"] = .string(message)
    if let error { fields["error"] = .string(error) }
    return fields
  }

  /// The result record of a run that ended for this reason before or
  /// outside its flow.
  public func engineResult(error: WorkbenchError) -> JSONObject {
    ResultReason.record(success: false, code: code, reason: slug, message: message, error: error.summary)
  }
}
