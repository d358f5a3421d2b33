import Capture
import Diagnostics
import Estimators
import Flows
import Foundation
import Interrupts
import JSONCore
import Logging
import Measurements
import Reporting
import Settings

/// One run of a flow over an input, and the one object that drives it: the
/// command line, the QA runner and anything else that runs a flow open it,
/// feed it frame by frame, may pause, resume or restart it, and close it.
///
///     let session = RunSession(options, logger: logger, estimators: provider)
///     session.addEventSink(mySink)           // before open
///     if session.open() { while session.step() {} }
///     let outcome = session.close()          // every output complete
///
/// Outputs are sinks registered on it (``addEventSink(_:)``,
/// ``addOutput(_:)``); QA faults wrap its input (``wrapFrameSource(_:)``,
/// ``wrapInput(_:)``). Every way a run can end before its flow decides goes
/// through ``end(_:)``.
public final class RunSession {
  /// Opens frame sources; tests give a scripted camera here.
  public typealias SourceOpener = (InputSpec, Double?) throws(WorkbenchError) -> (any FrameSource, live: Bool)

  public enum State: Sendable, Equatable {
    case created
    case running
    /// No frame reaches the flow and its clock stands still.
    case paused
    /// The run has a result; only ``close()`` is left.
    case ended
    case closed
  }

  public let options: RunOptions
  public internal(set) var state = State.created
  /// The flow, once loaded (a restart loads it again).
  public internal(set) var flow: LoadedFlow?
  /// Called once the flow has loaded, before the input opens, with the
  /// license features the run needs (what it measures: card, face).
  public var onFlowLoaded: ((LoadedFlow, [String]) -> Void)?
  /// The flow of `options.flow`, loaded before (``ReusableFlow``): open()
  /// runs it instead of loading the file. A restart loads the file.
  public var loadedBefore: LoadedFlow?

  let logger: Logger
  private let openFrames: SourceOpener
  private let estimatorProvider: any EstimatorProvider
  private let makeIdentity: IdentityMaker?
  let sinks = FanOutEventSink()
  /// The runner's events go through here: its `result` waits for the
  /// outputs to finish, so that it can name what they wrote.
  private lazy var resultHold = HeldResultSink(sinks)
  private let schema = MeasurementSchema()
  private var registeredOutputs: [any RunOutput] = []
  private var liveSinks: [any EventSink] = []
  private var frameSourceWrappers: [(any FrameSource) -> any FrameSource] = []
  private var inputWrappers: [(any MeasurementInput, MeasurementSchema) -> any MeasurementInput] = []
  var eventsToStandardOutput = false
  private var statusLine: StatusLineOutput?
  private var recording: RecordingOutput?
  private var artifacts: ArtifactsOutput?
  private var trace: TraceOutput?
  var runner: FlowRunner?
  var input: (any MeasurementInput)?
  private(set) var frameInput: FrameInput?
  private var pipeline: FramePipeline?
  /// What the pipeline's estimators were chosen for (nil: every estimator).
  private var pipelineMeasures: [String]?
  /// Whether the run ended because an estimator could not start.
  var estimatorFailedToStart = false
  private var pacer: RealtimePacer?
  private var clock = PauseClock()
  /// The outcome of a run that ended before its flow ran.
  private var earlyOutcome: RunOutcome?
  var problems: [Diagnostic] = []
  private var closedOutcome: RunOutcome?
  /// Where live controls arrive (the preview, the terminal's keys, the
  /// file watcher); nil for a run nobody watches. Set before ``open()``.
  public var controls: ControlMailbox?
  /// Called after a control was taken, on the loop's thread: its event is
  /// out. A reload that failed comes with its error.
  public var onControl: ((LiveControl, ControlReply) -> Void)?
  /// The flow's options as the next restart loads them: the run's own, with
  /// the settings applied since.
  lazy var flowOptions = options.flow
  /// Settings sent while paused, applied on resume.
  var pendingAssignments: [(origin: String, text: String)] = []
  /// A close control arrived: a live run ends for good.
  public internal(set) var closeRequested = false

  /// A session whose estimators come from `estimators` and whose faces are
  /// told apart by what `identity` makes (nil: flows that compare faces
  /// get no answers).
  public init(
    _ options: RunOptions, logger: Logger, estimators: any EstimatorProvider, identity: IdentityMaker? = nil,
    openFrames: @escaping SourceOpener = FrameSources.open
  ) {
    self.options = options
    self.logger = logger
    self.estimatorProvider = estimators
    self.makeIdentity = identity
    self.openFrames = openFrames
  }

  public func run() -> RunOutcome {
    if open() {
      while step() {}
    }
    return close()
  }

  /// A run someone watches (``controls`` set): when the flow ends it stays
  /// open for a restart, a reload or a close, until a close control or
  /// Ctrl-C, and only then completes its outputs.
  public func runLive() -> RunOutcome {
    if open() {
      while true {
        if step() { continue }
        guard state == .ended, !closeRequested, !Interrupts.pending, let controls else { break }
        controls.wait(seconds: 0.1)
        takeControls(controls)
      }
    }
    return close()
  }

  /// The run's measurement schema (what the frames' slots mean).
  public var measurementSchema: MeasurementSchema { schema }

  // MARK: Registration (before open)

  /// Also gets every event of the run.
  public func addEventSink(_ sink: any EventSink) { sinks.add(sink) }

  /// Gets the flow's events as they come, its `result` too the moment the
  /// flow decides (before the outputs complete, so without `outputs`): for
  /// a live view. Finished at close.
  public func addLiveSink(_ sink: any EventSink) {
    liveSinks.append(sink)
    resultHold.early.append(sink)
  }

  /// Also sees every frame the flow processed, and is completed at close.
  public func addOutput(_ output: any RunOutput) { registeredOutputs.append(output) }

  /// Wraps the recording or camera (to inject faults into its frames).
  public func wrapFrameSource(_ wrap: @escaping (any FrameSource) -> any FrameSource) {
    frameSourceWrappers.append(wrap)
  }

  /// Wraps the measurements the flow gets (to change, drop or repeat frames).
  public func wrapInput(_ wrap: @escaping (any MeasurementInput, MeasurementSchema) -> any MeasurementInput) {
    inputWrappers.append(wrap)
  }

  // MARK: Lifecycle

  /// Opens the outputs, loads the flow, checks the license and opens the
  /// input. False when the run ended on the way; the events and the outcome
  /// say why.
  @discardableResult
  public func open() -> Bool {
    precondition(state == .created, "a session opens once")
    Interrupts.install()
    state = .running
    do {
      try openOutputs()
    } catch {
      end(.outputFailed(error))
      return false
    }
    let flow: LoadedFlow
    do {
      if let loadedBefore {
        flow = loadedBefore
      } else {
        flow = try FlowLoader.load(options.flow, logger: logger)
      }
    } catch {
      end(.flowNotLoaded(error))
      return false
    }
    self.flow = flow
    let available =
      isTrace
      ? [] : estimatorProvider.estimators(for: flow, also: recordingNeeds, logger: logger)
    let features = licenseFeatures(flow, available: available)
    onFlowLoaded?(flow, features)
    if let licenseCheck = options.licenseCheck {
      do { try licenseCheck(features) } catch {
        end(.licenseRefused(error))
        return false
      }
    }
    runner = FlowRunner(flow: flow, sink: resultHold, schema: schema)
    do {
      try openInput(flow, available: available)
    } catch {
      end(.inputFailed(error))
      return false
    }
    return true
  }

  /// Gives the next frame to the flow. False once the run is over. While
  /// paused, a camera's frames are taken and thrown away, and a recording
  /// is not read (the call waits a moment).
  @discardableResult
  public func step() -> Bool {
    if let controls { takeControls(controls) }
    guard state == .running || state == .paused, let runner, let input else { return false }
    if Interrupts.pending {
      end(.interrupted(Interrupts.signalName))
      return false
    }
    if state == .paused { return stepWhilePaused(input) }
    let next: MeasurementFrame?
    do {
      next = try input.next(note: runner.note)
    } catch {
      end(.inputFailed(error))
      return false
    }
    guard var frame = next else {
      if Interrupts.pending {
        end(.interrupted(Interrupts.signalName))
      } else if let empty = unreadRecording(runner) {
        end(.inputFailed(empty))
      } else {
        end(.endOfInput)
      }
      return false
    }
    pacer?.wait(until: frame.t)
    if Interrupts.pending {
      end(.interrupted(Interrupts.signalName))
      return false
    }
    frame.t = clock.flowTime(frame.t)
    runner.process(frame)
    updateDemand(runner)
    let captured = frameInput?.currentFrame
    for output in frameOutputs { output.frameProcessed(frame, captured: captured) }
    if runner.isFinished {
      state = .ended
      if options.traceToEndOfInput, let trace { traceRemainingFrames(of: input, into: trace) }
    }
    return !runner.isFinished
  }

  /// Whether the trace holds every frame of the input: false when the rest
  /// of it, read after the flow decided, failed or was interrupted.
  public private(set) var traceIsComplete = true

  /// Measures the frames the flow no longer needs into the trace alone.
  private func traceRemainingFrames(of input: any MeasurementInput, into trace: TraceOutput) {
    while !Interrupts.pending {
      do {
        guard let frame = try input.next(note: { _ in }) else { return }
        trace.frameProcessed(frame, captured: nil)
      } catch {
        logger.debug("the rest of the input could not be measured: \(error.summary)")
        traceIsComplete = false
        return
      }
    }
    traceIsComplete = false
  }

  /// Stops giving frames to the flow; its timers stand still until ``resume()``.
  public func pause(_ extra: JSONObject = JSONObject()) {
    guard state == .running, let runner else { return }
    state = .paused
    runner.control("pause", extra)
  }

  public func resume(_ extra: JSONObject = JSONObject()) {
    guard state == .paused, let runner else { return }
    state = .running
    if input?.isLive == true { clock.resumeLive() }
    pacer?.reset()
    runner.control("resume", extra)
  }

  /// Starts the flow over: loaded again from its file (with `flowOptions`,
  /// or the run's own), on the same input (a recording from its start, a
  /// camera from its next frame). A flow that does not load throws, and the
  /// run goes on as it was.
  public func restart(
    with flowOptions: FlowOptions? = nil, action: String = "restart", _ extra: JSONObject = JSONObject()
  ) throws(WorkbenchError) {
    guard state == .running || state == .paused || state == .ended, runner != nil else { return }
    let flow = try FlowLoader.load(flowOptions ?? options.flow, logger: logger)
    let measures = RunAssembly.wanted(flow, also: recordingNeeds)
    var replacement: FramePipeline?
    if pipeline != nil, let measured = pipelineMeasures, measures.map({ !Set($0).isSubset(of: measured) }) ?? true {
      replacement = try pipeline(measuring: flow)
    }
    var reopened: (any MeasurementInput)?
    if input?.isLive != true {
      if let pipeline = replacement ?? pipeline {
        reopened = wrapped(try openFrameInput(pipeline))
      } else if case .file(let path) = options.input, TraceReader.canReadAgain(path) {
        reopened = wrapped(try TraceInput(path: path, schema: schema, read: options.readTrace))
      }
      // A trace from standard input or a pipe goes on where it is: it cannot be read again.
    }
    runner?.control(action, extra)
    if let replacement {
      pipeline = replacement
      pipelineMeasures = measures
    }
    if let reopened {
      input?.close()
      input = reopened
    }
    let runner = FlowRunner(flow: flow, sink: resultHold, schema: schema)
    self.flow = flow
    self.runner = runner
    attach(runner, to: flow)
    clock = PauseClock()
    pacer?.reset()
    state = .running
  }

  /// The estimators a flow that measures something else needs, started and
  /// licensed, for a restart: only for a recording, which is opened again
  /// through them; a camera keeps the estimators it was opened with.
  private func pipeline(measuring flow: LoadedFlow) throws(WorkbenchError) -> FramePipeline {
    guard input?.isLive != true else {
      throw WorkbenchError(
        .usage,
        "the changed flow measures [\((RunAssembly.wanted(flow, also: recordingNeeds) ?? ["everything"]).joined(separator: ", "))], which this run's estimators do not",
        at: SourceLocation(file: flow.displayPath),
        help: "run it again to measure that from the camera; the flow you had goes on")
    }
    let available = estimatorProvider.estimators(for: flow, also: recordingNeeds, logger: logger)
    try options.licenseCheck?(licenseFeatures(flow, available: available))
    do {
      return try RunAssembly.pipeline(
        for: flow, also: recordingNeeds, available: available, schema: schema,
        measuresEverything: options.traceToEndOfInput, logger: logger)
    } catch {
      throw error.error
    }
  }

  /// The license features a run of `flow` with these estimators needs.
  private func licenseFeatures(_ flow: LoadedFlow, available: [any Estimator]) -> [String] {
    RunAssembly.requiredFeatures(
      flowNeeds: flow.declaredNeeds + recordingNeeds,
      estimators: RunAssembly.chosenEstimators(available, wanted: RunAssembly.wanted(flow, also: recordingNeeds)),
      recording: options.recordPath != nil)
  }

  /// Ends the run now, for `ending`, unless it has ended already: the one
  /// path of every ending that is not the flow's own.
  public func end(_ ending: RunEnding) {
    guard state != .ended, state != .closed else { return }
    var ending = ending
    // A blocking open or read that Ctrl-C or SIGTERM cut short (a pipe with
    // no writer yet) fails with EINTR: the run was interrupted, not its input.
    if case .inputFailed = ending, Interrupts.pending { ending = .interrupted(Interrupts.signalName) }
    state = .ended
    if let runner {
      finishRunner(runner, ending)
    } else {
      earlyOutcome = engineEnding(ending)
    }
  }

  /// Ends the run if it is still going (reason `closed`, or `interrupted`
  /// after Ctrl-C), closes the input and completes every output and sink.
  /// Safe to call again: it returns the same outcome.
  @discardableResult
  public func close() -> RunOutcome {
    if let closedOutcome { return closedOutcome }
    if state == .created { state = .running }
    end(Interrupts.pending ? .interrupted(Interrupts.signalName) : .closed)
    input?.close()
    var outcome = earlyOutcome ?? runOutcome()
    var finished = FinishedRun(
      options: options, flow: flow, result: runner?.result, startT: runner?.startT, lastT: runner?.lastT ?? 0)
    if let path = options.recordPath, recording == nil, runner != nil {
      finished.written["recording"] = RunAssembly.recordingNotStarted(path, policy: options.recordPolicy)
    }
    for output in outputs {
      do { try output.finish(finished) } catch { outcome.fail(with: error.diagnostics) }
      for (key, value) in output.written { finished.written[key] = value }
    }
    // Every output is complete: the result names what they wrote, and is the last event.
    resultHold.release(
      adding: finished.written.isEmpty ? JSONObject() : JSONObject([("outputs", .object(finished.written))]))
    do { try sinks.finish() } catch { outcome.fail(with: error.diagnostics) }
    for sink in liveSinks { try? sink.finish() }
    if let flow { logger.debug("lua memory peak \(flow.vm.memoryPeak) bytes") }
    state = .closed
    closedOutcome = outcome
    return outcome
  }

  /// What the estimators saw on the frame just processed, for a live view
  /// (``OverlayDrawing``); empty for a trace. Call on the loop's thread,
  /// between frames.
  public func currentOverlays() -> JSONObject {
    var shapes = JSONObject()
    for estimator in pipeline?.estimators ?? [] {
      guard let drawing = estimator as? any OverlayDrawing else { continue }
      for (key, value) in drawing.overlay() { shapes[key] = value }
    }
    return shapes
  }

  // MARK: Parts

  private var isTrace: Bool {
    if case .file(let path) = options.input { return InputSpec.isTrace(path) }
    return false
  }

  /// What the record policy reads besides the flow's needs (`face.count` for `with-face`).
  private var recordingNeeds: [String] { options.recordPath == nil ? [] : options.recordPolicy.measurements }

  /// The built-in outputs first, in the order they complete (the recording
  /// before the signature that covers it), then the registered ones.
  var outputs: [any RunOutput] {
    let builtIn: [(any RunOutput)?] = [statusLine, recording, artifacts, trace]
    return builtIn.compactMap { $0 } + registeredOutputs
  }

  /// ``outputs`` as the frame loop reads them, made once the input is open
  /// so that no frame builds the list.
  private var frameOutputs: [any RunOutput] = []

  /// Outputs are opened before anything runs: a bad path is reported at
  /// once, and the events file still ends with a result.
  private func openOutputs() throws(WorkbenchError) {
    if let clash = RunAssembly.outputClash(options) { throw WorkbenchError(.usage, [clash]) }
    if let path = options.eventsPath {
      let sink = try JSONLinesEventSink(path: path)
      eventsToStandardOutput = sink.writesToStandardOutput
      sinks.add(sink)
    }
    if let path = options.artifactsPath { artifacts = ArtifactsOutput(try ArtifactFolder(path: path), logger: logger) }
    if let problem = RunAssembly.recordProblem(options) { throw problem }
    if let path = options.traceOutPath {
      trace = try TraceOutput(path: path, schema: schema, flowPath: options.flow.flowPath, source: options.input.name)
    }
    if options.showStatusLine && StatusLine.isAvailable {
      let line = StatusLine()
      sinks.add(line)
      statusLine = StatusLineOutput(line)
    }
  }

  /// Opens the trace, or the recording or camera with the estimators the
  /// flow's steps read, and wraps it as registered.
  private func openInput(_ flow: LoadedFlow, available: [any Estimator]) throws(WorkbenchError) {
    guard let runner else { return }
    var opened: any MeasurementInput
    if case .file(let path) = options.input, InputSpec.isTrace(path) {
      opened = try TraceInput(path: path, schema: schema, read: options.readTrace)
      if let warning = FrameSources.unusedRate(options.recordingFPS, path: path, timing: "trace", stated: nil) {
        logger.warning("\(warning)")
      }
    } else {
      let pipeline: FramePipeline
      do {
        pipeline = try RunAssembly.pipeline(
          for: flow, also: recordingNeeds, available: available, schema: schema,
          measuresEverything: options.traceToEndOfInput, logger: logger)
      } catch {
        if case .start = error { estimatorFailedToStart = true }
        throw error.error
      }
      self.pipeline = pipeline
      pipelineMeasures = RunAssembly.wanted(flow, also: recordingNeeds)
      let frames = try openFrameInput(pipeline)
      if let record = options.recordPath {
        recording = RunAssembly.recording(
          record, options: options, source: frames.sourceInfo, live: frames.isLive, schema: schema,
          available: available, logger: logger)
      }
      opened = frames
    }
    input = wrapped(opened)
    frameOutputs = outputs
    attach(runner, to: flow)
    pacer = options.realtime ? RealtimePacer() : nil
  }

  /// Tells the estimators that work only when asked what the next frame's step reads.
  private func updateDemand(_ runner: FlowRunner) {
    guard let demand = pipeline?.demand else { return }
    let step = runner.currentStep
    demand.update(step: step, reads: step.flatMap { runner.reads(ofStep: $0) })
  }

  private func openFrameInput(_ pipeline: FramePipeline) throws(WorkbenchError) -> FrameInput {
    var (source, live) = try openFrames(options.input, options.recordingFPS)
    if case .file(let path) = options.input,
      let warning = FrameSources.unusedRate(
        options.recordingFPS, path: path, timing: source.info.details["timing"], stated: source.info.fps)
    {
      logger.warning("\(warning)")
    }
    for wrap in frameSourceWrappers { source = wrap(source) }
    pipeline.focalLength = RunAssembly.focalLength(of: source.info)
    let frames = FrameInput(source: source, pipeline: pipeline, live: live)
    frameInput = frames
    return frames
  }

  private func wrapped(_ base: any MeasurementInput) -> any MeasurementInput {
    var input = base
    for wrap in inputWrappers { input = wrap(input, schema) }
    return input
  }

  /// What the runner reports of the input, and where captures go.
  private func attach(_ runner: FlowRunner, to flow: LoadedFlow) {
    guard let input else { return }
    if let demand = pipeline?.demand {
      demand.live = input.isLive || options.realtime
      demand.everything = options.traceToEndOfInput
      demand.forget()
      updateDemand(runner)
    }
    runner.sessionExtras["input"] = .object(input.description)
    runner.resultExtras = { input.resultFields }
    if let artifacts, let frames = frameInput {
      flow.capturer = { [unowned artifacts, unowned frames] name in artifacts.capture(name, from: frames) }
    }
    if let frames = frameInput, let makeIdentity {
      let context = IdentityContext(
        estimators: frames.pipeline.estimators, currentFrame: { [unowned frames] in frames.pipeline.lastDecoded },
        settings: flow.settings, artifacts: artifacts?.folder)
      flow.identity = makeIdentity(context)
    } else {
      flow.identity = nil
    }
  }

  /// A recording that ended before the flow was given a frame (it has none,
  /// or run skipped every one) is an input error, as `probe` says of it.
  private func unreadRecording(_ runner: FlowRunner) -> WorkbenchError? {
    guard runner.framesSeen == 0, case .file(let path) = options.input, !InputSpec.isTrace(path), let input,
      !input.isLive
    else { return nil }
    return FrameSources.workbenchError(RecordingProbe.noFrameRead(path: path, frames: input.counters.skipped))
  }

  private func stepWhilePaused(_ input: any MeasurementInput) -> Bool {
    guard input.isLive else {
      usleep(10_000)
      return true
    }
    do {
      guard try input.next(note: { _ in }) != nil else {
        end(Interrupts.pending ? .interrupted(Interrupts.signalName) : .endOfInput)
        return false
      }
    } catch {
      end(.inputFailed(error))
      return false
    }
    return true
  }

}
