import Diagnostics
import Flows
import Foundation
import JSONCore
import Reporting
import Settings

/// How a run ends: the flow's runner told why, or, when the flow never ran,
/// a result record of its own; and the outcome the caller gets.
extension RunSession {
  func finishRunner(_ runner: FlowRunner, _ ending: RunEnding) {
    switch ending {
    case .interrupted(let signal):
      runner.finish(interruptedBy: signal)
    case .endOfInput:
      if let cut = frameInput?.shortfall, case .file(let path) = options.input {
        logger.warning("\(WorkbenchHome.display(path)): \(cut.text)")
      }
      runner.finishAtEndOfInput()
    case .closed:
      runner.finishClosed()
    case .inputFailed(let error), .outputFailed(let error), .flowNotLoaded(let error), .licenseRefused(let error):
      problems += error.diagnostics
      if error.status == .input {
        runner.finish(inputError: error, reason: input?.counters.cameraLost == true ? "camera_lost" : "input_error")
      } else if estimatorFailedToStart {
        runner.finish(inputError: error, reason: "initialization_failed", status: error.status)
      } else {
        runner.finish(inputError: error, reason: "usage_error", status: error.status)
      }
    }
  }

  /// A run that ended before its flow ran still leaves a result record.
  func engineEnding(_ ending: RunEnding) -> RunOutcome {
    let reason: ResultReason
    let failure: WorkbenchError
    switch ending {
    case .outputFailed(let error): (reason, failure) = (.outputError, error)
    case .flowNotLoaded(let error):
      let settingsOnly = error.diagnostics.allSatisfy { $0.location?.key != nil && $0.location?.line == nil }
      let why: ResultReason =
        error.status == .interrupted
        ? .interrupted : settingsOnly && !error.diagnostics.isEmpty ? .settingsError : .flowNotLoaded
      (reason, failure) = (why, error)
    case .licenseRefused(let error): (reason, failure) = (.licenseError, error)
    case .inputFailed(let error): (reason, failure) = (.inputError, error)
    case .interrupted(let signal):
      (reason, failure) = (.interrupted, WorkbenchError(.interrupted, "interrupted (\(signal))"))
    case .endOfInput, .closed:
      (reason, failure) = (.usageError, WorkbenchError(.usage, "the run ended before its flow was loaded"))
    }
    sinks.emit(Event(type: "result", t: 0, frame: 0, fields: reason.engineResult(error: failure)))
    return RunOutcome(
      status: reason == .outputError ? .usage : failure.status, result: nil, flowName: flow?.description.name,
      problems: failure.diagnostics,
      detail: reason == .flowNotLoaded || reason == .settingsError ? failure.detail : nil,
      eventsToStandardOutput: eventsToStandardOutput)
  }

  func runOutcome() -> RunOutcome {
    var all = problems
    if let flow, let scriptError = runner?.lastScriptError {
      let source = (try? String(contentsOfFile: flow.options.flowPath, encoding: .utf8)) ?? ""
      all += FlowLoader.diagnostics(for: scriptError, flowPath: flow.displayPath, source: source)
    }
    var outcome = RunOutcome(
      status: runner?.result?.exitStatus ?? .failed, result: runner?.result, flowName: flow?.description.name,
      problems: all, detail: runner?.lastScriptError?.tracebackText, eventsToStandardOutput: eventsToStandardOutput)
    outcome.settings = flow?.settings
    return outcome
  }
}

extension RunOutcome {
  /// An output that could not be completed: its problems are reported, and
  /// a run whose flow passed or failed exits as an output error all the
  /// same, since 0 and 1 promise a complete record of the run. An input,
  /// license or interrupt status says more and stays.
  mutating func fail(with diagnostics: [Diagnostic]) {
    problems += diagnostics
    if status == .passed || status == .failed { status = .usage }
  }
}
