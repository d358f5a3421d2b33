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
}

/// What an output may read of a run that has ended.
public struct FinishedRun {
  public var options: RunOptions
  public var flow: LoadedFlow?
  public var result: FlowResult?
  /// The `t` of the first frame and of the last.
  public var startT: Double?
  public var lastT: Double
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
  private var failure: CaptureError?
  private let detectionNodes: (faces: Int?, card: Int?)

  init(recorder: FrameRecorder, policy: RecordPolicy, schema: MeasurementSchema) {
    self.recorder = recorder
    self.policy = policy
    if policy == .detections {
      // Created once, before the first frame, so the ids stay stable.
      detectionNodes = (try? schema.node(path: "face.count").get(), try? schema.node(path: "card.found").get())
    } else {
      detectionNodes = (nil, nil)
    }
  }

  /// Whether the frame shows a face or a card (the `detections` policy).
  private func hasDetection(_ measurements: MeasurementFrame) -> Bool {
    if let faces = detectionNodes.faces {
      switch measurements[faces] {
      case .integer(let count): if count > 0 { return true }
      case .number(let count): if count > 0 { return true }
      default: break
      }
    }
    if let card = detectionNodes.card, measurements[card] == .bool(true) { return true }
    return false
  }

  func frameProcessed(_ measurements: MeasurementFrame, captured: CapturedFrame?) {
    guard let captured, failure == nil else { return }
    if policy == .detections, !hasDetection(measurements) { return }
    do { try recorder.record(captured) } catch { failure = error }
  }

  func finish(_ run: FinishedRun) throws(WorkbenchError) {
    do throws(CaptureError) {
      if let failure { throw failure }
      let passed = run.result?.success == true
      switch policy {
      case .failed where passed, .passed where !passed: recorder.discard()
      default: try recorder.finish()
      }
    } catch {
      throw WorkbenchError(.usage, error.message, at: SourceLocation(file: error.source), help: error.help)
    }
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

  func finish(_ run: FinishedRun) throws(WorkbenchError) {
    var failures = problems
    if let flow = run.flow {
      do { try sign(run, flow: flow) } catch { failures += error.diagnostics }
    }
    if !failures.isEmpty { throw WorkbenchError(.usage, failures) }
  }

  /// Signs the images, the recording and its timestamps with the key of
  /// `integrity.signing_key`, when it names one.
  private func sign(_ run: FinishedRun, flow: LoadedFlow) throws(WorkbenchError) {
    guard let keyPath = flow.settings.string("integrity.signing_key"), !keyPath.isEmpty else {
      logger.debug("artifacts are not signed: the setting integrity.signing_key is empty")
      return
    }
    let key = try LicensePrivateKey.read(path: keyPath)
    var files = folder.files
    if let record = run.options.recordPath, FileManager.default.fileExists(atPath: record) {
      files.append(record)
      let sidecar = TimestampsSidecar.path(forRecording: record, isFolder: false)
      if FileManager.default.fileExists(atPath: sidecar) { files.append(sidecar) }
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
  }
}
