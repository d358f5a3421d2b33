import CardScenes
import Diagnostics
import FaceScenes
import Flows
import Foundation
import JSONCore
import Logging
import Measurements
import Randomness
import Reporting
import RunComposition
import Session

/// One settings point of an evaluation: what its runs add to the flow's
/// settings, and what its measurements depend on.
public struct SettingsPoint: Sendable {
  /// Its place in the grid, from 0.
  public var index = 0
  /// The sweep's values at this point, as records and the summary show them.
  public var settings: JSONObject
  /// `--set` then the sweep's values, as `key=value` texts (the flow's whole list).
  public var assignments: [String]
  /// What the estimators measure at this point besides the input: what the
  /// flow reads and the estimators' settings. Part of the cache key.
  public var recipe: [String]
  /// The flow describes faces from the frame's pixels (`face.descriptor`),
  /// which a kept measurement does not have: its recordings are measured
  /// at every point.
  public var comparesFaces = false
}

/// Runs a flow on one session at one settings point: measures the input
/// once into the cache (or takes the measurement kept there) and replays it.
final class SessionEvaluator {
  let flow: FlowOptions
  let cache: MeasurementCache
  let score: SessionScore?
  let noResponseReasons: Set<String>
  let licenseCheck: (@Sendable ([String]) throws(WorkbenchError) -> Void)?
  let estimators: any EstimatorProvider
  let logger: Logger
  /// `--keep-events`: each session's events and report go in a folder
  /// of its own under this one.
  var keptSessions: String?

  /// A trace is read once into its replayable form (kept in the cache for
  /// the next evaluation) and every settings point replays it (the last
  /// trace read is kept).
  private var lastRead: ReadTrace?
  /// The flow loaded once per settings point, for the first
  /// `reusableFlowLimit` points (a sweep's points take turns at every
  /// session, so none is dropped for another): the points past them, and
  /// sessions with settings of their own, load the flow themselves.
  private var reusableFlows: [[String]: ReusableFlow?] = [:]
  static let reusableFlowLimit = 64

  /// Sessions measured now, and kept measurements replayed: for run.json.
  private(set) var counts = CacheCounts()
  var replayed: Int { counts.replayed }

  init(
    flow: FlowOptions, cache: MeasurementCache, score: SessionScore?, noResponseReasons: Set<String>,
    licenseCheck: (@Sendable ([String]) throws(WorkbenchError) -> Void)?, estimators: any EstimatorProvider,
    logger: Logger
  ) {
    var flow = flow
    // Every session loads the flow with the same settings and message files.
    flow.files = FlowFiles.readOnce(flow)
    self.flow = flow
    self.cache = cache
    self.score = score
    self.noResponseReasons = noResponseReasons
    if let licenseCheck {
      self.licenseCheck = LicenseMemo.remembering(licenseCheck)
    } else {
      self.licenseCheck = nil
    }
    self.estimators = estimators
    self.logger = logger
  }

  /// The kinds of input a corpus names.
  enum InputKind {
    case trace
    case faceSchedule
    case cardSchedule
    case recording
  }

  static func kind(of path: String) -> InputKind {
    if path.hasSuffix(".json") {
      let text = (FileManager.default.contents(atPath: path)).map { String(decoding: $0, as: UTF8.self) } ?? ""
      return FaceSchedule.describesFace(text) ? .faceSchedule : .cardSchedule
    }
    return InputSpec.isTrace(path) ? .trace : .recording
  }

  /// Where `--keep-events` keeps a session's events and report at the
  /// point with index `point`, relative to the out folder.
  static func keptFolder(id: String, point: Int) -> String {
    let safe = String(id.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" }.prefix(80))
    return "sessions/p\(point)/\(safe)-\(String(StableHash.of(id) % 0xFFFF_FFFF, radix: 16))"
  }

  func evaluate(_ session: CorpusSession, at point: SettingsPoint) -> SessionRecord {
    var record = SessionRecord(
      id: session.id, input: session.input, label: session.label, species: session.species, subject: session.subject,
      settings: point.settings, decision: .none, reason: "input_error", code: nil, failedStep: nil, decidedAt: nil,
      score: nil, error: nil)
    let kept = keptSessions.map { $0 + "/" + Self.keptFolder(id: session.id, point: point.index) }
    let assignments =
      point.assignments + session.settings.map { SettingText.assignment($0.key, $0.value) }
    do {
      var input = session.path
      switch Self.kind(of: session.path) {
      case .trace:
        return run(
          input: input, assignments: assignments, into: record, keptIn: kept, reusingLoad: session.settings.isEmpty,
          measuringTo: nil)
      case .faceSchedule:
        input = try faceSceneTrace(session.path)
        return run(
          input: input, assignments: assignments, into: record, keptIn: kept, reusingLoad: session.settings.isEmpty,
          measuringTo: nil)
      case .cardSchedule:
        input = try cardSceneRecording(session.path)
      case .recording:
        break
      }
      if point.comparesFaces {
        counts.measured += 1
        counts.measuredInputs.append(session.input)
        return run(
          input: input, assignments: assignments, into: record, keptIn: kept, reusingLoad: session.settings.isEmpty,
          measuringTo: nil)
      }
      let estimatorSettings = session.settings.filter { Self.estimatorKeys.contains($0.key) }
        .map { SettingText.assignment($0.key, $0.value) }
      let key = try cache.key(inputPath: input, recipe: point.recipe + estimatorSettings)
      if cache.contains(key) {
        counts.replayed += 1
        return run(
          input: cache.path(key), assignments: assignments, into: record, keptIn: kept,
          reusingLoad: session.settings.isEmpty, measuringTo: nil)
      }
      counts.measured += 1
      counts.measuredInputs.append(session.input)
      let scratch = cache.scratchPath(key)
      return run(
        input: input, assignments: assignments, into: record, keptIn: kept, reusingLoad: session.settings.isEmpty,
        measuringTo: (scratch, key))
    } catch {
      record.error = error.summary
      return record
    }
  }

  static let estimatorKeys = Set(RunSettings.estimatorDeclarations.map(\.key))

  /// Runs the flow on `input`; with `measuringTo`, the whole input is
  /// measured into that scratch file and kept under the key when complete.
  private func run(
    input: String, assignments: [String], into base: SessionRecord, keptIn keptFolder: String?, reusingLoad: Bool,
    measuringTo: (scratch: String, key: String)?
  ) -> SessionRecord {
    var record = base
    var flowOptions = flow
    flowOptions.assignments = assignments
    var options = RunOptions(flow: flowOptions, input: .file(input))
    options.licenseCheck = licenseCheck
    if let measuringTo {
      options.traceOutPath = measuringTo.scratch
      options.traceToEndOfInput = true
    } else if InputSpec.isTrace(input) {
      options.readTrace = readOnce(input)
    }
    var extras: RunExtras?
    if let folder = keptFolder {
      try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      options.eventsPath = folder + "/events.jsonl"
      extras = try? RunExtras(
        report: folder, analytics: [], options: &options, settingsDirectory: flow.settingsDirectory)
    }
    let session = RunSession(options, logger: logger, measuringWith: estimators)
    if reusingLoad { session.loadedBefore = reusableFlow(flowOptions)?.next() }
    extras?.install(into: session)
    let events = DecisionSink()
    session.addEventSink(events)
    var scorer: ScoreOutput?
    if case .measurement(let spec) = score {
      let output = ScoreOutput(spec, schema: session.measurementSchema)
      session.addOutput(output)
      scorer = output
    }
    let outcome = session.run()
    // Before the measurement moves into the cache: the report reads it.
    _ = extras?.finish(outcome: outcome, logger: logger)
    if let measuringTo {
      let whole =
        session.traceIsComplete && outcome.result.map { !SessionEvaluator.unmade.contains($0.reason) } ?? false
      if whole, FileManager.default.fileExists(atPath: measuringTo.scratch) {
        do { try cache.commit(measuringTo.scratch, as: measuringTo.key) } catch {
          logger.warning("\(error.summary)")
        }
      } else {
        try? FileManager.default.removeItem(atPath: measuringTo.scratch)
      }
    }
    guard let result = events.result else {
      record.error = outcome.problems.first?.locatedMessage ?? "the run left no result"
      return record
    }
    counts.frames += Int(result["frames"]?.integerValue ?? 0)
    record.reason = result["reason"]?.stringValue ?? "unknown"
    record.code = result["code"]?.integerValue
    record.score = score == .flow ? result["score"]?.doubleValue : scorer?.score
    if SessionEvaluator.unmade.contains(record.reason) || outcome.result == nil {
      record.decision = .none
      record.error =
        result["error"]?.stringValue ?? outcome.problems.first?.locatedMessage ?? result["message"]?.stringValue
      return record
    }
    record.decidedAt = result.t
    if result["success"]?.boolValue == true {
      record.decision = .accepted
    } else {
      record.decision = noResponseReasons.contains(record.reason) ? .none : .rejected
      record.failedStep = events.failedStep
    }
    return record
  }

  /// The flow loaded once for these settings; nil when it does not load
  /// cleanly (each session then loads it and reports the problem).
  private func reusableFlow(_ options: FlowOptions) -> ReusableFlow? {
    if let known = reusableFlows[options.assignments] { return known }
    guard reusableFlows.count < Self.reusableFlowLimit else { return nil }
    let flow = ReusableFlow(options, logger: logger)
    reusableFlows[options.assignments] = .some(flow)
    return flow
  }

  /// The trace at `path` read whole, or the one read for the point before;
  /// nil for a recording, a large trace, or one that does not read (the run
  /// then reads the file and reports its error).
  private func readOnce(_ path: String) -> ReadTrace? {
    if let lastRead, lastRead.path == path { return lastRead }
    lastRead = cache.replayableTrace(path)
    return lastRead
  }

  /// Reasons a run ends with when it could not be made: no decision.
  static let unmade: Set<String> = [
    "input_error", "camera_lost", "initialization_failed", "usage_error", "flow_not_loaded", "settings_error",
    "license_error", "output_error", "interrupted", "script_error", "limit_exceeded",
  ]

  /// A face schedule's trace, made once (`workbench synth face`'s defaults).
  private func faceSceneTrace(_ schedule: String) throws(WorkbenchError) -> String {
    let key = try cache.key(inputPath: schedule, recipe: ["face scene v\(FaceScene.version) 1280x720@30 seed 1"])
    if cache.contains(key) { return cache.path(key) }
    let scratch = cache.scratchPath(key)
    _ = try FaceScene(schedule: try FaceSchedule.load(path: schedule)).write(to: scratch, source: schedule)
    try cache.commit(scratch, as: key)
    return cache.path(key)
  }

  /// A card schedule's recording, rendered once (as `workbench test`
  /// defaults), its sidecars beside it.
  private func cardSceneRecording(_ schedule: String) throws(WorkbenchError) -> String {
    let key = try cache.key(inputPath: schedule, recipe: ["card scene 640x360@30 seed 1"])
    if cache.contains(key, suffix: ".avi") { return cache.path(key, suffix: ".avi") }
    let scratch = cache.scratchPath(key, suffix: ".avi")
    _ = try CardScene(
      schedule: try CardSchedule.load(path: schedule), options: CardSceneOptions(width: 640, height: 360)
    ).write(to: scratch)
    for sidecar in [".timestamps.jsonl", ".truth.jsonl"]
    where FileManager.default.fileExists(atPath: scratch + sidecar) {
      try? FileManager.default.moveItem(atPath: scratch + sidecar, toPath: cache.path(key, suffix: ".avi") + sidecar)
    }
    try cache.commit(scratch, as: key, suffix: ".avi")
    return cache.path(key, suffix: ".avi")
  }
}

/// What the sessions of a run took from the cache and what they measured.
struct CacheCounts {
  var measured = 0
  var replayed = 0
  var measuredInputs: [String] = []
  /// Frames the flow processed, over every session run.
  var frames = 0

  mutating func add(_ other: CacheCounts) {
    measured += other.measured
    replayed += other.replayed
    measuredInputs += other.measuredInputs
    frames += other.frames
  }

  func write(to path: String) throws(WorkbenchError) {
    let object = JSONObject([
      ("measured", .integer(Int64(measured))), ("replayed", .integer(Int64(replayed))),
      ("measured_inputs", .array(measuredInputs.map(JSONValue.string))), ("frames", .integer(Int64(frames))),
    ])
    try Evaluation.writeFile(path, JSONValue.object(object).jsonText + "\n")
  }

  init() {}

  init?(path: String) {
    guard let data = FileManager.default.contents(atPath: path),
      let object = try? JSONParser.parse(bytes: Array(data))
    else { return nil }
    measured = object["measured"]?.integerValue.map(Int.init) ?? 0
    replayed = object["replayed"]?.integerValue.map(Int.init) ?? 0
    measuredInputs = object["measured_inputs"]?.arrayValue?.compactMap(\.stringValue) ?? []
    frames = object["frames"]?.integerValue.map(Int.init) ?? 0
  }
}

/// Keeps the run's result and the step that failed last.
final class DecisionSink: EventSink {
  private(set) var result: Event?
  private(set) var failedStep: String?

  func emit(_ event: Event) {
    switch event.type {
    case "result": result = event
    case "step" where event["state"]?.stringValue == "failed": failedStep = event["name"]?.stringValue
    default: break
    }
  }

  func finish() throws(WorkbenchError) {}
}
