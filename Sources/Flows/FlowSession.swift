import Diagnostics
import Foundation
import JSONCore
import Logging
import Measurements
import Reporting
import Scripting

/// Everything `workbench run` needs.
public struct RunOptions: Sendable {
  public var flow: FlowOptions
  public var inputPath: String
  public var eventsPath: String?
  public var traceOutPath: String?
  public var showStatusLine: Bool
  /// Pace the frames to the wall clock by their times, as a live session would.
  public var realtime = false

  public init(flow: FlowOptions, inputPath: String) {
    self.flow = flow
    self.inputPath = inputPath
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
}

/// One run of a flow over an input: sinks, the frame loop, Ctrl-C, and
/// outputs that are complete whatever happens.
public enum FlowSession {
  public static func run(_ options: RunOptions, logger: Logger) -> RunOutcome {
    Interrupts.install()
    if let clash = outputClash(options) {
      return RunOutcome(
        status: .usage, result: nil, flowName: nil, problems: [clash], detail: nil,
        eventsToStandardOutput: false)
    }
    let sinks = FanOutEventSink()
    var eventsToStandardOutput = false
    if let path = options.eventsPath {
      do {
        let sink = try JSONLinesEventSink(path: path)
        eventsToStandardOutput = sink.writesToStandardOutput
        sinks.add(sink)
      } catch {
        return RunOutcome(
          status: .usage, result: nil, flowName: nil, problems: error.diagnostics, detail: nil,
          eventsToStandardOutput: false)
      }
    }
    // Outputs are opened before anything runs: a bad path is reported at
    // once, and the events file still ends with a result.
    let schema = MeasurementSchema()
    var traceWriter: TraceWriter?
    if let path = options.traceOutPath {
      do {
        traceWriter = try TraceWriter(
          path: path, schema: schema,
          header: JSONObject([
            ("flow", .string(WorkbenchHome.display(options.flow.flowPath))),
            ("source", .string(WorkbenchHome.display(options.inputPath))),
          ]))
      } catch {
        sinks.emit(
          Event(
            type: "result", t: 0, frame: 0,
            fields: engineResult(
              reason: "output_error", code: -2,
              message: "an output could not be written", error: error)))
        var outcome = RunOutcome(
          status: .usage, result: nil, flowName: nil, problems: error.diagnostics,
          detail: nil, eventsToStandardOutput: eventsToStandardOutput)
        do { try sinks.finish() } catch { outcome.problems += error.diagnostics }
        return outcome
      }
    }
    var statusLine: StatusLine?
    if options.showStatusLine && StatusLine.isAvailable {
      statusLine = StatusLine()
      sinks.add(statusLine!)
    }

    func finishSinks(_ outcome: inout RunOutcome) {
      do { try sinks.finish() } catch {
        outcome.problems += error.diagnostics
        if outcome.status == .passed { outcome.status = .usage }
      }
    }

    let flow: LoadedFlow
    do {
      flow = try FlowLoader.load(options.flow, logger: logger)
    } catch {
      // Even a flow that never loaded leaves an events file that ends in a result.
      let interrupted = error.status == .interrupted
      sinks.emit(
        Event(
          type: "result", t: 0, frame: 0,
          fields: engineResult(
            reason: interrupted ? "interrupted" : "script_error", code: interrupted ? -130 : -2,
            message: interrupted ? "interrupted" : "the flow could not be loaded", error: error)))
      try? traceWriter?.finish()
      var outcome = RunOutcome(
        status: error.status, result: nil, flowName: nil, problems: error.diagnostics,
        detail: error.detail, eventsToStandardOutput: eventsToStandardOutput)
      finishSinks(&outcome)
      return outcome
    }

    let runner = FlowRunner(flow: flow, sink: sinks, schema: schema)
    if let statusLine { runner.onFrame = { statusLine.tick(t: $0) } }
    var problems: [Diagnostic] = []

    do {
      var reader = try TraceReader(path: options.inputPath, schema: schema)
      let pacer = options.realtime ? RealtimePacer() : nil
      while !runner.isFinished {
        if Interrupts.pending {
          runner.finish(interruptedBy: Interrupts.signalName)
          break
        }
        guard let frame = try reader.next() else { break }
        pacer?.wait(until: frame.t)
        if Interrupts.pending {
          runner.finish(interruptedBy: Interrupts.signalName)
          break
        }
        traceWriter?.write(frame)
        runner.process(frame)
      }
      runner.finishAtEndOfInput()
    } catch {
      problems += error.diagnostics
      runner.finish(inputError: error)
    }
    if let scriptError = runner.lastScriptError {
      let source = (try? String(contentsOfFile: options.flow.flowPath, encoding: .utf8)) ?? ""
      problems += FlowLoader.diagnostics(for: scriptError, flowPath: flow.displayPath, source: source)
    }
    var outcome = RunOutcome(
      status: runner.result?.exitStatus ?? .failed, result: runner.result, flowName: flow.description.name,
      problems: problems, detail: runner.lastScriptError?.tracebackText,
      eventsToStandardOutput: eventsToStandardOutput)
    do { try traceWriter?.finish() } catch {
      outcome.problems += error.diagnostics
      if outcome.status == .passed { outcome.status = .usage }
    }
    finishSinks(&outcome)
    logger.debug("lua memory peak \(flow.vm.memoryPeak) bytes")
    return outcome
  }
}

extension FlowSession {
  /// Two outputs, or an output and the input, on one path would destroy
  /// each other.
  static func outputClash(_ options: RunOptions) -> Diagnostic? {
    func canonical(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }
    // Inputs first, then outputs: every pair that includes an output is checked.
    let files: [(name: String, path: String)] = [
      ("--input", options.inputPath), ("the flow", options.flow.flowPath),
      ("--events", options.eventsPath ?? "-"), ("--trace-out", options.traceOutPath ?? "-"),
    ]
    for later in 2..<files.count where files[later].path != "-" {
      for earlier in 0..<later where canonical(files[earlier].path) == canonical(files[later].path) {
        return Diagnostic(
          "\(files[later].name) would overwrite \(files[earlier].name)", at: SourceLocation(file: files[later].path),
          help: "give each output a path of its own")
      }
    }
    return nil
  }

  /// The result record of a run that ended before or outside the flow.
  static func engineResult(reason: String, code: Int64, message: String, error: WorkbenchError) -> JSONObject {
    var fields = JSONObject()
    fields["success"] = .bool(false)
    fields["code"] = .integer(code)
    fields["reason"] = .string(reason)
    fields["message"] = .string(message)
    fields["error"] = .string(
      error.diagnostics.map { ($0.location.map { "\($0): " } ?? "") + $0.message }.joined(separator: "\n"))
    return fields
  }
}

/// Sleeps so that frame times line up with the wall clock, in short naps
/// that notice Ctrl-C.
final class RealtimePacer {
  private var origin: (input: Double, wall: Double)?

  func wait(until t: Double) {
    let now = ProcessInfo.processInfo.systemUptime
    guard let origin else {
      self.origin = (t, now)
      return
    }
    var remaining = (t - origin.input) - (now - origin.wall)
    while remaining > 0 && !Interrupts.pending {
      let nap = min(remaining, 0.05)
      usleep(UInt32(nap * 1_000_000))
      remaining -= nap
    }
  }
}
