import Capture
import CardGeometry
import Diagnostics
import Estimators
import Flows
import Foundation
import JSONCore
import Logging
import Measurements
import Settings

/// How a run is put together from the estimators it is given: which of
/// them it needs, which license features that takes, and which outputs
/// clash. Which estimators exist is the composition's (``EstimatorProvider``).
public enum RunAssembly {
  /// What a run of `flow` measures: the flow's needs and `also`; nil when
  /// the flow does not say (then every estimator runs).
  static func wanted(_ flow: LoadedFlow, also: [String]) -> [String]? {
    flow.needs.map { $0 + also }
  }

  /// The camera's focal length in pixels, when the source says: a
  /// recording's header gives `focal` (pixels, as `workbench synth card`
  /// writes) or `field_of_view` (horizontal, degrees).
  static func focalLength(of info: SourceInfo) -> Double? {
    if let focal = info.details["focal"].flatMap(Double.init), focal > 1, focal.isFinite { return focal }
    if let degrees = info.details["field_of_view"].flatMap(Double.init), degrees > 1, degrees < 179,
      let width = info.width
    {
      return PinholeCamera.focal(width: width, horizontalFieldOfView: degrees)
    }
    return nil
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

  /// Why the estimators of a run could not be put together.
  enum PipelineFailure: Error {
    /// They cannot be arranged (a need nothing provides, a circle of needs).
    case arrangement(WorkbenchError)
    /// One of them could not start (a model that does not load): LUNA
    /// ID's 1000, initialisation failed, for flows that map it.
    case start(WorkbenchError)

    var error: WorkbenchError {
      switch self {
      case .arrangement(let error), .start(let error): error
      }
    }
  }

  /// The estimators the flow's steps read (and `also`), in order, prepared on `schema`.
  /// `measuresEverything`: each estimator computes all it can (an
  /// evaluation's cache, replayed under other settings).
  static func pipeline(
    for flow: LoadedFlow, also: [String] = [], available: [any Estimator], schema: MeasurementSchema,
    measuresEverything: Bool = false, logger: Logger
  ) throws(PipelineFailure) -> FramePipeline {
    let graph: EstimatorGraph
    do {
      graph = try EstimatorGraph(available: available, wanted: wanted(flow, also: also))
    } catch {
      throw .arrangement(WorkbenchError(.usage, error.description, help: error.help))
    }
    let pipeline: FramePipeline
    do {
      pipeline = try FramePipeline(
        graph: graph, schema: schema, measuresEverything: measuresEverything, alsoReads: flow.readsBesideNeeds)
    } catch {
      throw .start(WorkbenchError(.usage, error.description, help: error.help))
    }
    let unprovided = flow.needs.map { EstimatorGraph.unprovided($0, available: available) } ?? []
    if !unprovided.isEmpty {
      logger.warning(
        "the flow reads \(unprovided.joined(separator: ", ")), which no estimator provides: those measurements stay empty (is a plugin missing? 'workbench estimators' lists what there is)"
      )
    }
    return pipeline
  }

  /// `--record`'s output for frames from `source`; a `live` source (a
  /// camera) never waits for a video encoder that is behind.
  static func recording(
    _ path: String, options: RunOptions, source: SourceInfo, live: Bool, schema: MeasurementSchema,
    available: [any Estimator], logger: Logger
  ) -> RecordingOutput {
    let policy = options.recordPolicy
    let recorder = FrameRecorder(
      path: path, fps: source.fps ?? 30, deviceInfo: source.details.merging(["device": source.name]) { a, _ in a },
      deferred: policy.decidesAtTheEnd, live: live)
    if policy == .detections,
      EstimatorGraph.unprovided(["face.count", "card.found"], available: available).count == 2
    {
      logger.warning(
        "--record-policy detections keeps frames where face.count > 0 or card.found is true, and no estimator provides either: nothing will be recorded"
      )
    }
    if policy.needsAFace, !EstimatorGraph.unprovided(["face.count"], available: available).isEmpty {
      logger.warning(
        "--record-policy \(policy.rawValue) keeps the recording only when a face is seen, and no estimator provides face.count (\(WorkbenchHome.faceBackendInstallCommand) installs the face estimator): the recording will not be kept"
      )
    }
    return RecordingOutput(recorder: recorder, policy: policy, schema: schema, logger: logger)
  }

  /// The result's `outputs.recording` of a run that ended before its
  /// recording could start (the input did not open).
  static func recordingNotStarted(_ path: String, policy: RecordPolicy) -> JSONValue {
    .object(
      JSONObject([
        ("path", .string(path)), ("policy", .string(policy.rawValue)), ("kept", .bool(false)),
        ("why", .string("the run ended before its input opened")),
      ]))
  }

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

  /// Two outputs, or an output and the input, on one path would destroy
  /// each other.
  static func outputClash(_ options: RunOptions) -> Diagnostic? {
    // Inputs first, then outputs: every pair that includes an output is checked.
    let inputPath: String
    if case .file(let path) = options.input { inputPath = path } else { inputPath = "-" }
    let files: [(name: String, path: String)] = [
      ("--input", inputPath), ("the flow", options.flow.flowPath),
      ("--events", options.eventsPath ?? "-"), ("--trace-out", options.traceOutPath ?? "-"),
      ("--record", options.recordPath ?? "-"),
    ]
    for later in 2..<files.count where files[later].path != "-" {
      for earlier in 0..<later where FileIdentity.same(files[earlier].path, files[later].path) {
        return Diagnostic(
          "\(files[later].name) would overwrite \(files[earlier].name)", at: SourceLocation(file: files[later].path),
          help: "give each output a path of its own")
      }
    }
    return nil
  }
}
