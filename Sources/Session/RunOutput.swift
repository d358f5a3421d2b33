import Capture
import Diagnostics
import Flows
import Foundation
import Integrity
import JSONCore
import Licensing
import Logging
import Measurements
import Reporting
import Settings

/// An output of a run that is not an event sink: it sees every frame the
/// flow processed and is completed when the run ends. A new output is a new
/// type of this kind registered on the session (`RunSession.addOutput`),
/// never an edit of the frame loop.
public protocol RunOutput: AnyObject {
  /// A frame the flow has just processed: its measurements as the flow saw
  /// them, and the frame as captured (nil for a measurement trace).
  func frameProcessed(_ measurements: MeasurementFrame, captured: CapturedFrame?)
  /// Completes the output; the session reports what it throws and never
  /// calls it twice.
  func finish(_ run: FinishedRun) throws(WorkbenchError)
  /// What the output left, read after ``finish(_:)``: fields of the `result`
  /// event's `outputs` object, naming files that exist (empty: none).
  var written: JSONObject { get }
}

extension RunOutput {
  public var written: JSONObject { JSONObject() }
}

/// What an output may read of a run that has ended.
public struct FinishedRun {
  public var options: RunOptions
  public var flow: LoadedFlow?
  public var result: FlowResult?
  /// The `t` of the first frame and of the last.
  public var startT: Double?
  public var lastT: Double
  /// What the outputs finished before this one wrote (their ``RunOutput/written``):
  /// the signature reads the recording here.
  public var written = JSONObject()
}

/// `--trace-out`: the measurements the flow saw, as a replayable trace.
final class TraceOutput: RunOutput {
  private let writer: TraceWriter

  init(path: String, schema: MeasurementSchema, flowPath: String, source: String) throws(WorkbenchError) {
    writer = try TraceWriter(
      path: path, schema: schema,
      header: JSONObject([("flow", .string(WorkbenchHome.display(flowPath))), ("source", .string(source))]))
  }

  func frameProcessed(_ measurements: MeasurementFrame, captured: CapturedFrame?) { writer.write(measurements) }
  func finish(_ run: FinishedRun) throws(WorkbenchError) { try writer.finish() }
}

/// The terminal's status line: a sink for the events, redrawn after every frame.
final class StatusLineOutput: RunOutput {
  let line: StatusLine

  init(_ line: StatusLine) { self.line = line }

  func frameProcessed(_ measurements: MeasurementFrame, captured: CapturedFrame?) { line.tick(t: measurements.t) }
  func finish(_ run: FinishedRun) throws(WorkbenchError) {}
}

/// `--record`: the frames the flow saw in an MJPEG AVI, kept or deleted by
/// the record policy when the run ends.
final class RecordingOutput: RunOutput {
  private let recorder: FrameRecorder
  private let policy: RecordPolicy
  private let logger: Logger
  private var failure: CaptureError?
  private let detectionNodes: (faces: Int?, card: Int?)
  /// Whether a frame showed a face, and whether any frame had `face.count` at all.
  private var faceSeen = false
  private var faceMeasured = false
  private var framesGiven = 0
  /// Why the run left no recording at the path, once finished.
  private var notKept: String?
  private var problem: CaptureError?

  init(recorder: FrameRecorder, policy: RecordPolicy, schema: MeasurementSchema, logger: Logger) {
    self.recorder = recorder
    self.policy = policy
    self.logger = logger
    // Created once, before the first frame, so the ids stay stable.
    let faces = policy == .detections || policy.needsAFace ? try? schema.node(path: "face.count").get() : nil
    let card = policy == .detections ? try? schema.node(path: "card.found").get() : nil
    detectionNodes = (faces, card)
  }

  /// Whether the frame shows a face (`face.count` above 0), noting that
  /// the count was measured.
  private func hasFace(_ measurements: MeasurementFrame) -> Bool {
    guard let faces = detectionNodes.faces else { return false }
    switch measurements[faces] {
    case .integer(let count):
      faceMeasured = true
      return count > 0
    case .number(let count):
      faceMeasured = true
      return count > 0
    default: return false
    }
  }

  /// Whether the frame shows a face or a card (the `detections` policy).
  private func hasDetection(_ measurements: MeasurementFrame) -> Bool {
    if hasFace(measurements) { return true }
    if let card = detectionNodes.card, measurements[card] == .bool(true) { return true }
    return false
  }

  func frameProcessed(_ measurements: MeasurementFrame, captured: CapturedFrame?) {
    guard let captured, failure == nil else { return }
    framesGiven += 1
    if policy.needsAFace, !faceSeen, hasFace(measurements) { faceSeen = true }
    if policy == .detections, !hasDetection(measurements) { return }
    do { try recorder.record(captured) } catch { failure = error }
  }

  /// Why the policy throws this run's recording away; nil when it stays.
  private func policyDiscards(_ run: FinishedRun) -> String? {
    let passed = run.result?.success == true
    switch policy {
    case .failed where passed: return "the flow passed"
    case .passed where !passed: return "the flow did not pass"
    case .withFace, .ignoreWithoutFace:
      if faceSeen { return nil }
      if framesGiven == 0 { return "the flow was given no frame, so no face was seen" }
      if !faceMeasured { return "no estimator measured face.count, so no face could be seen" }
      return framesGiven == 1
        ? "no face was seen in the one frame the flow was given"
        : "no face was seen in the \(framesGiven) frames the flow was given"
    default: return nil
    }
  }

  func finish(_ run: FinishedRun) throws(WorkbenchError) {
    // A frame that could not be written stops the recording; what it has is still finished and kept.
    problem = failure
    if let why = policyDiscards(run) {
      recorder.discard()
      notKept = why
      logger.info("\(recorder.path) was not kept (--record-policy \(policy.rawValue)): \(why)")
    } else {
      do { try recorder.finish() } catch { if problem == nil { problem = error } }
      if !recorder.isInPlace && problem == nil {
        notKept =
          policy == .detections && framesGiven > 0
          ? "no frame the flow was given had a face or a card" : "the flow was given no frame to record"
      }
    }
    if let problem {
      throw WorkbenchError(.usage, problem.message, at: SourceLocation(file: problem.source), help: problem.help)
    }
  }

  /// `{"recording": {"path", "policy", "kept", "frames", "timestamps"}}`, or
  /// with `why` (and `error`) when the run left no recording at the path.
  var written: JSONObject {
    var recording = JSONObject()
    recording["path"] = .string(recorder.path)
    recording["policy"] = .string(policy.rawValue)
    recording["kept"] = .bool(recorder.isInPlace)
    if recorder.isInPlace {
      recording["frames"] = .integer(Int64(recorder.framesWritten))
      if recorder.framesDropped > 0 { recording["dropped"] = .integer(Int64(recorder.framesDropped)) }
      recording["timestamps"] = .string(recorder.sidecarPath)
    } else if let notKept {
      recording["why"] = .string(notKept)
    }
    if let problem { recording["error"] = .string("\(problem.source): \(problem.message)") }
    return JSONObject([("recording", .object(recording))])
  }
}

/// `--artifacts`: the images the flow captured (ctx.capture) and, with the
/// setting `integrity.signing_key`, their signature with the recording.
final class ArtifactsOutput: RunOutput {

  let folder: ArtifactFolder
  private let logger: Logger
  /// Captures that could not be written, reported when the run ends.
  private(set) var problems: [Diagnostic] = []

  init(_ folder: ArtifactFolder, logger: Logger) {
    self.folder = folder
    self.logger = logger
  }

  /// Keeps the images of the frame being processed under `name`.
  func capture(_ name: String, from input: FrameInput) -> CaptureFiles? {
    do throws(WorkbenchError) {
      return try input.capture(name, into: folder)
    } catch {
      problems += error.diagnostics
      return nil
    }
  }

  func frameProcessed(_ measurements: MeasurementFrame, captured: CapturedFrame?) {}

  /// The signature file, once written.
  private var signature: String?
  private var failures: [Diagnostic] = []

  func finish(_ run: FinishedRun) throws(WorkbenchError) {
    failures = problems
    if let flow = run.flow {
      do { signature = try sign(run, flow: flow) } catch { failures += error.diagnostics }
    }
    if !failures.isEmpty { throw WorkbenchError(.usage, failures) }
  }

  /// `{"artifacts": {"folder", "files", "error"}, "signature": path}`: the
  /// files the captures wrote, in order, as the captures name them.
  var written: JSONObject {
    var artifacts = JSONObject()
    artifacts["folder"] = .string(folder.path)
    artifacts["files"] = .array(folder.files.map { .string($0) })
    if let first = failures.first { artifacts["error"] = .string(first.locatedMessage) }
    var fields = JSONObject([("artifacts", .object(artifacts))])
    if let signature { fields["signature"] = .string(signature) }
    return fields
  }

  /// Signs the images, the recording and its timestamps with the key of
  /// `integrity.signing_key`, when it names one; returns the signature's path.
  private func sign(_ run: FinishedRun, flow: LoadedFlow) throws(WorkbenchError) -> String? {
    guard let keyPath = flow.settings.string(RunOutputSettings.signingKey), !keyPath.isEmpty else {
      logger.debug("artifacts are not signed: the setting integrity.signing_key is empty")
      return nil
    }
    let key = try LicensePrivateKey.read(path: keyPath)
    var files = folder.files
    // This run's recording only: a file the policy left at that path from before is not the run's.
    if let recording = run.written["recording"], recording["kept"] == .bool(true) {
      for key in ["path", "timestamps"] {
        if let file = recording[key]?.stringValue { files.append(file) }
      }
    }
    var timestamps: [(name: String, t: Double)] = [("start", run.startT ?? 0)]
    for (name, capture) in flow.captures {
      if let t = capture["t"]?.doubleValue { timestamps.append((name, t)) }
    }
    timestamps.append(("stop", run.lastT))
    let path = try ArtifactSignature.sign(
      files: files, folder: folder.path, flow: flow.description.name, resultCode: run.result?.code ?? -2,
      resultReason: run.result?.reason ?? "unknown", timestamps: timestamps, key: key)
    logger.info("signed \(files.count) files into \(path) (public key \(key.publicKey.id))")
    return path
  }
}

/// The settings of a run's outputs, declared where they are read.
public enum RunOutputSettings {
  /// The key that signs a run's artifacts (read here and by `workbench sign`).
  public static let signingKey = "integrity.signing_key"

  public static let declarations: [SettingDeclaration] = [
    SettingDeclaration(
      key: signingKey, type: .string, defaultValue: .string(""),
      doc:
        "Ed25519 private key file (workbench license keygen) that signs a run's artifacts into --artifacts/signature.json; empty: no signature"
    )
  ]
}
