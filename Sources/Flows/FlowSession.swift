import Capture
import Diagnostics
import Estimators
import FaceEstimation
import Foundation
import Integrity
import JSONCore
import Licensing
import Logging
import Measurements
import Reporting
import Scripting
import Settings

/// Everything `workbench run` needs.
public struct RunOptions: Sendable {
  public var flow: FlowOptions
  public var input: InputSpec
  /// Frame rate of a recording that does not say (JPEG folders, MJPEG).
  public var recordingFPS: Double?
  public var eventsPath: String?
  public var traceOutPath: String?
  public var showStatusLine: Bool
  /// Pace the frames to the wall clock by their times, as a live session would.
  public var realtime = false
  /// Keep the frames the flow saw in an MJPEG AVI (with a timestamps sidecar).
  public var recordPath: String?
  public var recordPolicy = RecordPolicy.always
  /// Called after the flow loads and before the input opens, with the
  /// features the run needs (``FlowSession/requiredFeatures(flowNeeds:estimators:recording:)``);
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
/// In-process additions to a run, for test suites: more event sinks, and
/// faults injected into its frames and measurements.
public struct RunHooks {
  /// Also get every event (a suite keeps them in memory).
  public var extraSinks: [any EventSink] = []
  /// Wraps the recording or camera, to inject faults into its frames.
  public var frameSourceWrapper: ((any FrameSource) -> any FrameSource)?
  /// Changes each frame's measurements before the flow sees them.
  public var measurementAdjuster: ((inout MeasurementFrame, MeasurementSchema) -> Void)?
  /// For a trace: the frames the flow gets for each frame read (none to
  /// drop it, more to duplicate it, other times for jitter).
  public var traceFrameFaults: ((MeasurementFrame) -> [MeasurementFrame])?
  /// Called once the flow has loaded, before the input opens, with the
  /// license features the run needs (what it measures: card, face).
  public var flowLoaded: ((LoadedFlow, [String]) -> Void)?

  public init() {}
}

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

/// One run of a flow over an input: sinks, the frame loop, Ctrl-C, and
/// outputs that are complete whatever happens.
public enum FlowSession {
  /// Opens frame sources; tests give a scripted camera here.
  typealias SourceOpener = (InputSpec, Double?) throws(WorkbenchError) -> (any FrameSource, live: Bool)

  public static func run(_ options: RunOptions, logger: Logger, hooks: RunHooks = RunHooks()) -> RunOutcome {
    run(options, logger: logger, hooks: hooks, openFrames: FrameSources.open)
  }

  static func run(
    _ options: RunOptions, logger: Logger, hooks: RunHooks = RunHooks(), openFrames: SourceOpener
  ) -> RunOutcome {
    Interrupts.install()
    if let clash = outputClash(options) {
      return RunOutcome(
        status: .usage, result: nil, flowName: nil, problems: [clash], detail: nil,
        eventsToStandardOutput: false)
    }
    let sinks = FanOutEventSink()
    for sink in hooks.extraSinks { sinks.add(sink) }
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
    var artifacts: ArtifactFolder?
    if let path = options.artifactsPath {
      do {
        artifacts = try ArtifactFolder(path: path)
      } catch {
        sinks.emit(
          Event(
            type: "result", t: 0, frame: 0,
            fields: engineResult(
              reason: "output_error", code: -2, message: "an output could not be written", error: error)))
        try? traceWriter?.finish()
        var outcome = RunOutcome(
          status: .usage, result: nil, flowName: nil, problems: error.diagnostics, detail: nil,
          eventsToStandardOutput: eventsToStandardOutput)
        do { try sinks.finish() } catch { outcome.problems += error.diagnostics }
        return outcome
      }
    }
    if let problem = recordProblem(options) {
      sinks.emit(
        Event(
          type: "result", t: 0, frame: 0,
          fields: engineResult(
            reason: "output_error", code: -2, message: "an output could not be written", error: problem)))
      var outcome = RunOutcome(
        status: .usage, result: nil, flowName: nil, problems: problem.diagnostics, detail: nil,
        eventsToStandardOutput: eventsToStandardOutput)
      do { try sinks.finish() } catch { outcome.problems += error.diagnostics }
      return outcome
    }
    if let path = options.traceOutPath {
      do {
        traceWriter = try TraceWriter(
          path: path, schema: schema,
          header: JSONObject([
            ("flow", .string(WorkbenchHome.display(options.flow.flowPath))),
            ("source", .string(options.input.name)),
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

    let isTrace: Bool
    if case .file(let path) = options.input, InputSpec.isTrace(path) { isTrace = true } else { isTrace = false }
    let available =
      isTrace ? [] : availableEstimators(flow.home, settings: flow.settings, wanted: flow.declaredNeeds, logger: logger)
    let features = requiredFeatures(
      flowNeeds: flow.declaredNeeds, estimators: isTrace ? [] : chosenEstimators(available, wanted: flow.needs),
      recording: options.recordPath != nil)
    hooks.flowLoaded?(flow, features)
    if let licenseCheck = options.licenseCheck {
      do {
        try licenseCheck(features)
      } catch {
        sinks.emit(
          Event(
            type: "result", t: 0, frame: 0,
            fields: engineResult(
              reason: "license_error", code: -3, message: "the license does not allow this run", error: error)))
        try? traceWriter?.finish()
        var outcome = RunOutcome(
          status: error.status, result: nil, flowName: flow.description.name, problems: error.diagnostics,
          detail: nil, eventsToStandardOutput: eventsToStandardOutput)
        finishSinks(&outcome)
        return outcome
      }
    }

    let runner = FlowRunner(flow: flow, sink: sinks, schema: schema)
    if let statusLine { runner.onFrame = { statusLine.tick(t: $0) } }
    var problems: [Diagnostic] = []

    var input: (any MeasurementInput)?
    var recordingFailed = false
    let captureProblems = DiagnosticBox()
    do {
      let opened = try openInput(
        options, flow: flow, schema: schema, available: available, hooks: hooks, logger: logger,
        openFrames: openFrames)
      input = opened
      if let artifacts, let frames = opened as? FrameInput {
        flow.host.capturer = { [captureProblems] name in
          do throws(WorkbenchError) {
            return try frames.capture(name, into: artifacts)
          } catch {
            captureProblems.diagnostics += error.diagnostics
            return nil
          }
        }
      }
      runner.sessionExtras["input"] = .object(opened.description)
      runner.resultExtras = { resultCounters(opened) }
      let pacer = options.realtime ? RealtimePacer() : nil
      // Input notes are events at the frame they concern.
      let note: (InputNote) -> Void = { note in
        switch note {
        case .skipped(let index, let t, _), .dropped(_, _, let t, let index):
          runner.beginIfNeeded(t: t, frame: index)
          runner.advanceClock(t: t, frame: index)
        }
        switch note {
        case .skipped(let index, let t, let reason):
          sinks.emit(
            Event(type: "frame_skipped", t: t, frame: index, fields: JSONObject([("reason", .string(reason))])))
        case .dropped(let count, let total, let t, let index):
          sinks.emit(
            Event(
              type: "frames_dropped", t: t, frame: index,
              fields: JSONObject([("count", .integer(Int64(count))), ("total", .integer(Int64(total)))])))
        }
      }
      while !runner.isFinished {
        if Interrupts.pending { break }
        guard var frame = try opened.next(note: note) else { break }
        hooks.measurementAdjuster?(&frame, schema)
        if let traceFrameFaults = hooks.traceFrameFaults, opened is TraceInput {
          for faulty in traceFrameFaults(frame) where !runner.isFinished {
            traceWriter?.write(faulty)
            runner.process(faulty)
          }
          continue
        }
        pacer?.wait(until: frame.t)
        if Interrupts.pending { break }
        traceWriter?.write(frame)
        runner.process(frame)
        opened.frameWasProcessed()
      }
      if Interrupts.pending { runner.finish(interruptedBy: Interrupts.signalName) }
      runner.finishAtEndOfInput()
    } catch {
      problems += error.diagnostics
      if error.status == .input {
        runner.finish(inputError: error, reason: input?.counters.cameraLost == true ? "camera_lost" : "input_error")
      } else {
        runner.finish(inputError: error, reason: "usage_error", status: error.status)
      }
    }
    if let frames = input as? FrameInput {
      do { try frames.finishRecording(flowPassed: runner.result?.success == true) } catch {
        problems.append(Diagnostic(error.message, at: SourceLocation(file: error.source), help: error.help))
        recordingFailed = true
      }
    }
    input?.close()
    if !captureProblems.diagnostics.isEmpty {
      problems += captureProblems.diagnostics
      recordingFailed = true
    }
    if let artifacts {
      do {
        try signArtifacts(artifacts, options: options, flow: flow, runner: runner, logger: logger)
      } catch {
        problems += error.diagnostics
        recordingFailed = true
      }
    }
    if let scriptError = runner.lastScriptError {
      let source = (try? String(contentsOfFile: options.flow.flowPath, encoding: .utf8)) ?? ""
      problems += FlowLoader.diagnostics(for: scriptError, flowPath: flow.displayPath, source: source)
    }
    var outcome = RunOutcome(
      status: runner.result?.exitStatus ?? .failed, result: runner.result, flowName: flow.description.name,
      problems: problems, detail: runner.lastScriptError?.tracebackText,
      eventsToStandardOutput: eventsToStandardOutput)
    outcome.settings = flow.settings
    do { try traceWriter?.finish() } catch {
      outcome.problems += error.diagnostics
      if outcome.status == .passed { outcome.status = .usage }
    }
    if recordingFailed && outcome.status == .passed { outcome.status = .usage }
    finishSinks(&outcome)
    logger.debug("lua memory peak \(flow.vm.memoryPeak) bytes")
    return outcome
  }
}

extension FlowSession {
  /// Why `--record` cannot be honoured, found before anything runs.
  static func recordProblem(_ options: RunOptions) -> WorkbenchError? {
    guard let record = options.recordPath else { return nil }
    if case .file(let path) = options.input, InputSpec.isTrace(path) {
      return WorkbenchError(
        .usage, "--record keeps frames, and a measurement trace has none", at: SourceLocation(file: record),
        help: "record from a recording or a camera, or keep the measurements with --trace-out")
    }
    do {
      try FrameRecorder.checkWritable(record)
    } catch {
      return WorkbenchError(.usage, error.message, at: SourceLocation(file: record), help: error.help)
    }
    return nil
  }

  static func resultCounters(_ input: any MeasurementInput) -> JSONObject {
    guard !(input is TraceInput) else { return JSONObject() }
    return JSONObject([
      ("frames_skipped", .integer(Int64(input.counters.skipped))),
      ("frames_dropped", .integer(Int64(input.counters.dropped))),
    ])
  }

  /// Opens the trace, recording or camera, and for frames the estimators
  /// the flow's steps read (built in, and plugins from plugins/).
  static func openInput(
    _ options: RunOptions, flow: LoadedFlow, schema: MeasurementSchema, available: [any Estimator],
    hooks: RunHooks = RunHooks(), logger: Logger, openFrames: SourceOpener
  ) throws(WorkbenchError) -> any MeasurementInput {
    if case .file(let path) = options.input, InputSpec.isTrace(path) {
      return try TraceInput(path: path, schema: schema)
    }
    var (source, live) = try openFrames(options.input, options.recordingFPS)
    if let wrap = hooks.frameSourceWrapper { source = wrap(source) }
    do {
      let graph = try EstimatorGraph(available: available, wanted: flow.needs)
      let pipeline = try FramePipeline(graph: graph, schema: schema)
      let deferred = options.recordPolicy == .failed || options.recordPolicy == .passed
      let recorder = options.recordPath.map {
        FrameRecorder(
          path: $0, fps: source.info.fps ?? 30,
          deviceInfo: source.info.details.merging(["device": source.info.name]) { a, _ in a },
          deferred: deferred)
      }
      if options.recordPath != nil, options.recordPolicy == .detections,
        EstimatorGraph.unprovided(["face.count", "card.found"], available: available).count == 2
      {
        logger.warning(
          "--record-policy detections keeps frames where face.count > 0 or card.found is true, and no estimator provides either: nothing will be recorded"
        )
      }
      let unprovided = flow.needs.map { EstimatorGraph.unprovided($0, available: available) } ?? []
      if !unprovided.isEmpty {
        logger.warning(
          "the flow reads \(unprovided.joined(separator: ", ")), which no estimator provides: those measurements stay empty (is a plugin missing? 'workbench estimators' lists what there is)"
        )
      }
      return FrameInput(
        source: source, pipeline: pipeline, live: live, recorder: recorder, policy: options.recordPolicy)
    } catch {
      source.close()
      throw WorkbenchError(.usage, error.description, help: error.help)
    }
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
    let (plugins, reports) = PluginLoader.load(directory: home.plugins, display: WorkbenchHome.display(home.plugins))
    for report in reports {
      if case .skipped = report.outcome { logger.warning("plugin \(report)") }
    }
    var face: [any Estimator] = []
    let options = FaceEstimators.options(home: home.root, settings: settings)
    let readsFace = (wanted ?? []).contains { $0 == "face" || $0.hasPrefix("face.") }
    if readsFace || FaceEstimators.isInstalled(options) {
      do {
        face = try FaceEstimators.make(home: home.root, settings: settings, logger: logger).map { estimator in
          (estimator as? FaceEstimator).map { FaceCaptureEstimator($0) } ?? estimator
        }
      } catch {
        logger.warning("\(error)\(error.help.map { " (\($0))" } ?? "")")
      }
    } else {
      logger.debug("the face estimator is not installed (\(FaceEstimators.installCommand)); runs go on without it")
    }
    let card = CardEstimators.make(
      settings: settings, face: FaceEstimators.isInstalled(options) ? options : nil, logger: logger)
    return BuiltinEstimators.all() + card + face + plugins
  }

  /// Signs the artifacts, the recording and its timestamps with the key of
  /// `integrity.signing_key`, when it names one.
  static func signArtifacts(
    _ artifacts: ArtifactFolder, options: RunOptions, flow: LoadedFlow, runner: FlowRunner, logger: Logger
  ) throws(WorkbenchError) {
    guard let keyPath = flow.settings.string("integrity.signing_key"), !keyPath.isEmpty else {
      logger.debug("artifacts are not signed: the setting integrity.signing_key is empty")
      return
    }
    let key = try LicensePrivateKey.read(path: keyPath)
    var files = artifacts.files
    if let record = options.recordPath, FileManager.default.fileExists(atPath: record) {
      files.append(record)
      let sidecar = TimestampsSidecar.path(forRecording: record, isFolder: false)
      if FileManager.default.fileExists(atPath: sidecar) { files.append(sidecar) }
    }
    var timestamps: [(name: String, t: Double)] = [("start", runner.startT ?? 0)]
    for (name, capture) in flow.host.captures {
      if let t = capture["t"]?.doubleValue { timestamps.append((name, t)) }
    }
    timestamps.append(("stop", runner.lastT))
    let result = runner.result
    let path = try ArtifactSignature.sign(
      files: files, folder: artifacts.path, flow: flow.description.name, resultCode: result?.code ?? -2,
      resultReason: result?.reason ?? "unknown", timestamps: timestamps, key: key)
    logger.info("signed \(files.count) files into \(path) (public key \(key.publicKey.id))")
  }

  /// The license features a run needs: `card` and `face` when the flow
  /// reads those measurements or runs their estimators, `plugins` when a
  /// plugin's estimator runs, `record` when it keeps frames. Sorted.
  public static func requiredFeatures(flowNeeds: [String], estimators: [any Estimator], recording: Bool)
    -> [String]
  {
    var features = Set<String>()
    func group(_ path: String) -> String? {
      let head = path.split(separator: ".", maxSplits: 1).first.map(String.init) ?? path
      return head == "card" || head == "face" ? head : nil
    }
    for path in flowNeeds {
      if let feature = group(path) { features.insert(feature) }
    }
    for estimator in estimators {
      let descriptor = estimator.descriptor
      if descriptor.origin != "built-in" { features.insert("plugins") }
      for path in descriptor.provides {
        if let feature = group(path) { features.insert(feature) }
      }
    }
    if recording { features.insert("record") }
    return features.sorted()
  }

  /// The estimators a run with these wanted measurements would run; empty
  /// when they cannot be arranged (opening the input reports why).
  static func chosenEstimators(_ available: [any Estimator], wanted: [String]?) -> [any Estimator] {
    (try? EstimatorGraph(available: available, wanted: wanted))?.ordered ?? []
  }

  /// Two outputs, or an output and the input, on one path would destroy
  /// each other.
  static func outputClash(_ options: RunOptions) -> Diagnostic? {
    func canonical(_ path: String) -> String { FileIdentity.canonical(path) }
    // Inputs first, then outputs: every pair that includes an output is checked.
    let inputPath: String
    if case .file(let path) = options.input { inputPath = path } else { inputPath = "-" }
    let files: [(name: String, path: String)] = [
      ("--input", inputPath), ("the flow", options.flow.flowPath),
      ("--events", options.eventsPath ?? "-"), ("--trace-out", options.traceOutPath ?? "-"),
      ("--record", options.recordPath ?? "-"),
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
