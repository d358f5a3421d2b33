import Diagnostics
import Foundation
import Interrupts
import JSONCore
import Measurements
import Randomness
import Reporting
import Scripting

/// How a run ended.
public struct FlowResult: Sendable, Equatable {
  public var success: Bool
  public var code: Int64
  /// A stable slug: passed, step_failed, step_timeout, time_limit,
  /// end_of_input, script_error, limit_exceeded, interrupted, input_error,
  /// or a reason a step gave.
  public var reason: String
  public var message: String
  public var exitStatus: ExitStatus
  /// For script errors: "file:line: message".
  public var error: String?
}

/// What a step's update said about the current frame.
enum StepOutcome: Equatable {
  case continuing
  case passed
  case failed(reason: String?, code: Int64?)

  /// `true` passes, `false [, reason [, code]]` fails, nothing goes on;
  /// anything else is a mistake in the step.
  init(_ result: DriverResult) throws(ScriptError) {
    switch result.first {
    case .none: self = .continuing
    case .bool(true): self = .passed
    case .bool(false): self = .failed(reason: result.string, code: result.integer)
    case .other(let type):
      throw ScriptError(
        kind: .apiMisuse,
        message: "update returned a \(type); return true (passed), false, \"reason\" (failed) or nothing")
    }
  }
}

/// Drives a loaded flow frame by frame: starts steps, enforces timeouts,
/// the delay between steps and the total time limit, and emits events.
/// Time comes only from the frames, so a trace always gives the same events.
public final class FlowRunner {
  public let flow: LoadedFlow
  public let schema: MeasurementSchema
  public private(set) var result: FlowResult?
  public let seed: Int64
  /// Indices into the flow's steps, in the order this run uses.
  public let order: [Int]

  private let sink: any EventSink
  private let timeLimit: Double
  private let defaultStepTimeout: Double
  private let stepDelay: Double
  /// The `t` of the first frame, and of the last one processed.
  public private(set) var startT: Double?
  public private(set) var lastT: Double = 0
  private var lastFrame: Int64 = 0
  /// Frames the flow was given.
  public private(set) var framesSeen: Int64 = 0
  private var stepsPassed = 0
  private var phase = Phase.notStarted

  /// The step the next frame goes to (its index in the flow's steps): the
  /// running one, or the one about to start (so that its first frame has
  /// what it reads); nil after the flow.
  public var currentStep: Int? {
    switch phase {
    case .notStarted: order.first
    case .running(let position, _, _), .waiting(let position, _): order[position]
    case .finished: nil
    }
  }

  /// What step `index` reads (its needs, with the watchers'); nil when it
  /// does not say, so it may read anything.
  public func reads(ofStep index: Int) -> [String]? {
    let needs = flow.description.steps[index].needs
    return needs.isEmpty ? nil : needs
  }

  private enum Phase {
    case notStarted
    case running(position: Int, startedAt: Double, timeout: Double)
    case waiting(position: Int, readyAt: Double)
    case finished
  }

  public init(flow: LoadedFlow, sink: any EventSink, schema: MeasurementSchema = MeasurementSchema()) {
    self.flow = flow
    self.sink = sink
    self.schema = schema
    let settings = flow.settings
    timeLimit = settings.number("flow.time_limit") ?? FlowSettings.defaultTimeLimit
    defaultStepTimeout = settings.number("flow.step_timeout") ?? FlowSettings.defaultStepTimeout
    stepDelay = settings.number("flow.step_delay") ?? FlowSettings.defaultStepDelay

    let random = settings.string("flow.order") == "random"
    var chosenSeed = settings.integer("flow.seed") ?? 0
    if random && chosenSeed == 0 {
      // A fresh challenge order every run is the point of random order:
      // a replayed video cannot know it in advance.
      chosenSeed = Int64(UInt32.random(in: 1...UInt32.max))
    }
    seed = chosenSeed
    var indices = Array(flow.description.steps.indices)
    if random {
      var generator = SeededRandom(state: UInt64(chosenSeed))
      // Fisher–Yates by hand: the standard library's shuffle may change
      // between releases, and a seed must mean the same order forever.
      if indices.count > 1 {
        for i in stride(from: indices.count - 1, to: 0, by: -1) {
          let j = Int(generator.next() % UInt64(i + 1))
          indices.swapAt(i, j)
        }
      }
      let pick = Int(settings.integer("flow.pick") ?? 0)
      if pick > 0 && pick < indices.count { indices = Array(indices.prefix(pick)) }
    }
    order = indices
    flow.vm.seedRandom(chosenSeed)
    flow.host.sink = sink

    for (id, node) in schema.nodes.enumerated() { mirror(id, node) }
    schema.onAdd = { [unowned self] id, node in self.mirror(id, node) }
  }

  private func mirror(_ id: Int, _ node: MeasurementSchema.Node) {
    let created: Int
    switch node.key {
    case .name(let name):
      created = flow.vm.addSchemaNode(parent: node.parent, name: name, index: 0, isTable: node.isTable)
    case .index(let index):
      created = flow.vm.addSchemaNode(parent: node.parent, name: nil, index: index, isTable: node.isTable)
    }
    assert(created == id, "the Lua mirror of the measurement schema is out of step")
  }

  public var isFinished: Bool { result != nil }

  private func emit(_ type: String, _ fields: JSONObject) {
    sink.emit(Event(type: type, t: lastT, frame: lastFrame, fields: fields))
  }

  /// Emits the session record; called by the first frame, or by `finish`
  /// when there was none.
  private func begin(t: Double, frame: Int64) {
    startT = t
    lastT = t
    lastFrame = frame
    flow.host.currentT = t
    flow.host.currentFrame = frame
    let steps = flow.description.steps
    var fields = JSONObject()
    fields["flow"] = .string(flow.description.name)
    fields["file"] = .string(flow.displayPath)
    fields["seed"] = .integer(seed)
    fields["order"] = .array(order.map { .string(steps[$0].name) })
    fields["time_limit"] = .number(timeLimit)
    fields["lang"] = .string(flow.settings.string("messages.language") ?? "en")
    fields["workbench"] = .string(WorkbenchVersion.current)
    if !flow.description.watchThresholds.isEmpty {
      fields["thresholds"] = FlowDescription.Threshold.eventValue(flow.description.watchThresholds)
    }
    for (key, value) in sessionExtras { fields[key] = value }
    emit("session", fields)
  }

  /// Emits the session record now if it has not been: events about the
  /// input (a skipped or dropped frame) must not come before it.
  private func beginIfNeeded(t: Double, frame: Int64) {
    if startT == nil && result == nil { begin(t: t, frame: frame) }
  }

  /// Moves the run's clock to an input event that came after the last
  /// frame (a skipped frame at the end), so that the result is not earlier.
  private func advanceClock(t: Double, frame: Int64) {
    guard result == nil, t > lastT else { return }
    lastT = t
    lastFrame = frame
  }

  /// A frame of the input could not be measured: an event at its time.
  public func frameSkipped(index: Int64, t: Double, reason: String) {
    inputEvent(t: t, frame: index, "frame_skipped", JSONObject([("reason", .string(reason))]))
  }

  /// Frames were dropped because the estimators fell behind a live camera.
  public func framesDropped(count: Int, total: Int, t: Double, index: Int64) {
    inputEvent(
      t: t, frame: index, "frames_dropped",
      JSONObject([("count", .integer(Int64(count))), ("total", .integer(Int64(total)))]))
  }

  /// Events about the input come at the frame they concern, after the
  /// session record, and never earlier than the last frame's.
  private func inputEvent(t: Double, frame: Int64, _ type: String, _ fields: JSONObject) {
    beginIfNeeded(t: t, frame: frame)
    advanceClock(t: t, frame: frame)
    sink.emit(Event(type: type, t: t, frame: frame, fields: fields))
  }

  /// Whoever drives the run paused, resumed, restarted or closed it, sent
  /// a command or changed a setting; `extra` says more (who, what).
  public func control(_ action: String, _ extra: JSONObject = JSONObject()) {
    var fields = JSONObject([("action", .string(action))])
    for (key, value) in extra where key != "action" { fields[key] = value }
    emit("control", fields)
  }

  /// Gives one frame to the flow. Returns false once the run is over.
  @discardableResult
  public func process(_ frame: MeasurementFrame) -> Bool {
    guard result == nil else { return false }
    if startT == nil { begin(t: frame.t, frame: frame.index) }
    lastT = frame.t
    lastFrame = frame.index
    framesSeen += 1
    flow.host.currentT = frame.t
    flow.host.currentFrame = frame.index

    do {
      try advance(frame)
    } catch {
      finish(scriptError: error)
    }
    return result == nil
  }

  private func advance(_ frame: MeasurementFrame) throws(ScriptError) {
    let t = frame.t
    switch phase {
    case .finished:
      return
    case .notStarted:
      try start(position: 0, t: t)
    case .waiting(let position, let readyAt):
      if t >= readyAt - FlowRunner.timeTolerance {
        try start(position: position, t: t)
      } else {
        checkTimeLimit(t)
        return
      }
    case .running:
      break
    }
    guard case .running(let position, let startedAt, let timeout) = phase else { return }
    let stepIndex = order[position]
    // A frame captured after a deadline is too late, whatever it shows.
    if timeout > 0 && t - startedAt > timeout + FlowRunner.timeTolerance {
      stopRunningStep(position, reason: "step_timeout")
      if result != nil { return }
      stepEvent(position, state: "failed", extra: [("reason", .string("step_timeout"))])
      phase = .finished
      finishFlow(success: false, reason: "step_timeout", code: flow.description.steps[stepIndex].failCode)
      return
    }
    checkTimeLimit(t)
    if result != nil { return }
    let outcome: StepOutcome
    do {
      // The runtime binds each step's update(step, m, ctx); ctx.elapsed is set on the way.
      outcome = try StepOutcome(
        flow.vm.callBound(
          index: stepIndex + 1, measurements: frame, nodeCount: schema.count, setting: "elapsed",
          to: t - startedAt))
    } catch  where error.kind == .apiMisuse {
      var named = error
      named.message = "step '\(flow.description.steps[stepIndex].name)': \(error.message)"
      throw named
    }
    switch outcome {
    case .passed:
      stepsPassed += 1
      stepEvent(position, state: "passed", extra: [("elapsed", .number((t - startedAt).roundedToMicroseconds))])
      if position + 1 >= order.count {
        phase = .finished
        finishFlow(success: true, reason: "passed", code: nil)
      } else {
        phase = .waiting(position: position + 1, readyAt: t + stepDelay)
      }
    case .failed(let reason, let code):
      let why = reason ?? "step_failed"
      stepEvent(position, state: "failed", extra: [("reason", .string(why))])
      phase = .finished
      finishFlow(success: false, reason: why, code: code ?? flow.description.steps[stepIndex].failCode)
    case .continuing:
      break
    }
  }

  /// Times are compared to the microsecond: 5/30 + 0.2 must equal 11/30.
  static let timeTolerance = 1e-6

  private func checkTimeLimit(_ t: Double) {
    guard timeLimit > 0, let startT, t - startT > timeLimit + FlowRunner.timeTolerance, result == nil else { return }
    if case .running(let position, _, _) = phase {
      stopRunningStep(position, reason: "time_limit")
      if result != nil { return }
      stepEvent(position, state: "failed", extra: [("reason", .string("time_limit"))])
    }
    phase = .finished
    finishFlow(success: false, reason: "time_limit", code: nil)
  }

  private func start(position: Int, t: Double) throws(ScriptError) {
    let step = flow.description.steps[order[position]]
    let timeout = step.timeout ?? defaultStepTimeout
    phase = .running(position: position, startedAt: t, timeout: timeout)
    var extra: [(String, JSONValue)] = timeout > 0 ? [("timeout", .number(timeout))] : []
    if !step.thresholds.isEmpty { extra.append(("thresholds", FlowDescription.Threshold.eventValue(step.thresholds))) }
    stepEvent(position, state: "started", extra: extra)
    // The driver's start(index, t, flow_started_at) runs the step's start.
    _ = try flow.vm.callDriver("start", index: order[position] + 1, t, startT ?? t)
  }

  /// The engine ends the running step itself (the input ended, the
  /// session was closed, a time ran out): the step's `stop(self, ctx,
  /// reason)` runs first, so that an interaction says it failed (LUNA ID's
  /// INTERACTION_FAILED) before the result. A script error in it ends the
  /// run as any other (check `result` after the call).
  private func stopRunningStep(_ position: Int, reason: String) {
    let argument = JSONObject([("index", .integer(Int64(order[position] + 1))), ("reason", .string(reason))])
    do {
      try flow.vm.callDriver("stop", value: .object(argument))
    } catch {
      finish(scriptError: error)
    }
  }

  private func stepEvent(_ position: Int, state: String, extra: [(String, JSONValue)]) {
    var fields = JSONObject()
    fields["name"] = .string(flow.description.steps[order[position]].name)
    fields["index"] = .integer(Int64(position + 1))
    fields["of"] = .integer(Int64(order.count))
    fields["state"] = .string(state)
    for (key, value) in extra { fields[key] = value }
    emit("step", fields)
  }

  // MARK: Endings

  /// The input ended (or the caller stops); ends the run if it is still going.
  public func finishAtEndOfInput() { finishEarly(reason: "end_of_input") }

  /// Whoever drives the run closed it before the flow finished.
  public func finishClosed() { finishEarly(reason: "closed") }

  /// Ends a run the flow did not end: the running step fails for `reason`,
  /// and so does the flow (its codes and on_finish apply).
  private func finishEarly(reason: String) {
    guard result == nil else { return }
    if startT == nil { begin(t: 0, frame: 0) }
    if case .running(let position, _, _) = phase {
      stopRunningStep(position, reason: reason)
      if result != nil { return }
      stepEvent(position, state: "failed", extra: [("reason", .string(reason))])
    }
    phase = .finished
    finishFlow(success: false, reason: reason, code: nil)
  }

  public func finish(interruptedBy signal: String) {
    guard result == nil else { return }
    if startT == nil { begin(t: 0, frame: 0) }
    phase = .finished
    let reason = ResultReason.interrupted
    emitResult(
      FlowResult(
        success: false, code: reason.code, reason: reason.slug, message: "\(reason.message) (\(signal))",
        exitStatus: .interrupted, error: nil))
  }

  /// The input failed; `reason` is "input_error", or "camera_lost" when a
  /// camera went away mid-run.
  public func finish(inputError: WorkbenchError, reason: String = "input_error", status: ExitStatus = .input) {
    guard result == nil else { return }
    if startT == nil { begin(t: 0, frame: 0) }
    if case .running(let position, _, _) = phase {
      stopRunningStep(position, reason: reason)
      if result != nil { return }
      stepEvent(position, state: "failed", extra: [("reason", .string(reason))])
    }
    phase = .finished
    // A flow may give these reasons codes of its own (LUNA ID's 1000 for
    // initialization_failed).
    let code =
      flow.description.codes[reason] ?? (status == .input ? ResultReason.inputError.code : ResultReason.usageError.code)
    emitResult(
      FlowResult(
        success: false, code: code, reason: reason, message: flow.resultMessage(reason),
        exitStatus: status,
        error: inputError.diagnostics.first?.locatedMessage))
  }

  public func finish(scriptError error: ScriptError) {
    guard result == nil else { return }
    if startT == nil { begin(t: 0, frame: 0) }
    phase = .finished
    if error.kind == .interrupted {
      finish(interruptedBy: Interrupts.signalName)
      return
    }
    let isLimit = error.kind == .instructionLimit || error.kind == .memoryLimit
    let reason: ResultReason = isLimit ? .limitExceeded : .scriptError
    emitResult(
      FlowResult(
        success: false, code: reason.code, reason: reason.slug, message: flow.resultMessage(reason.slug),
        exitStatus: .usage, error: error.message))
    lastScriptError = error
  }

  /// Fields the input adds to the result (frames skipped and dropped),
  /// read when the result is written.
  public var resultExtras: () -> JSONObject = { JSONObject() }

  /// Fields the input adds to the session record (what it is).
  public var sessionExtras = JSONObject()

  /// The script error that ended the run, for the command's diagnostics.
  public private(set) var lastScriptError: ScriptError?

  private func finishFlow(success: Bool, reason: String, code: Int64?) {
    let codes = flow.description.codes
    let finalCode: Int64
    if success {
      finalCode = codes["passed"] ?? ResultReason.passed.code
    } else {
      // Any failure the flow gives no code, a step's own reasons too: step_failed's.
      finalCode = code ?? codes[reason] ?? codes["failed"] ?? ResultReason.stepFailed.code
    }
    if flow.description.hasOnFinish || flow.description.hasScore {
      var argument = JSONObject()
      argument["success"] = .bool(success)
      argument["code"] = .integer(finalCode)
      argument["reason"] = .string(reason)
      do {
        try flow.vm.callDriver("finish", value: .object(argument))
      } catch {
        finish(scriptError: flow.locatingFlowTableProblem(error))
        return
      }
    }
    emitResult(
      FlowResult(
        success: success, code: finalCode, reason: reason, message: flow.resultMessage(reason),
        exitStatus: success ? .passed : .failed, error: nil))
  }

  private func emitResult(_ outcome: FlowResult) {
    result = outcome
    var fields = ResultReason.record(
      success: outcome.success, code: outcome.code, reason: outcome.reason, message: outcome.message,
      error: outcome.error)
    fields["steps_passed"] = .integer(Int64(stepsPassed))
    fields["steps"] = .integer(Int64(order.count))
    fields["frames"] = .integer(framesSeen)
    fields["duration"] = .number((lastT - (startT ?? lastT)).roundedToMicroseconds)
    for (key, value) in resultExtras() { fields[key] = value }
    if !flow.host.captures.isEmpty { fields["captures"] = .object(flow.host.captures) }
    if let score = flow.host.score { fields["score"] = .number(score) }
    emit("result", fields)
  }
}
