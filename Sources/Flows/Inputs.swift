import Capture
import Diagnostics
import Estimators
import Foundation
import JSONCore
import Measurements
import Scripting

/// Where a run's frames come from, as the user named it.
public enum InputSpec: Sendable, Equatable {
  /// A measurement trace (JSON Lines), or a recording (JPEG folder, MJPEG,
  /// AVI, Y4M): told apart by the file.
  case file(String)
  case camera(device: String, width: Int?, height: Int?, fps: Double?)

  public var name: String {
    switch self {
    case .file(let path): return path
    case .camera(let device, _, _, _): return device
    }
  }

  /// Whether `path` is a measurement trace rather than a recording.
  public static func isTrace(_ path: String) -> Bool {
    if path.hasSuffix(".jsonl") || path.hasSuffix(".ndjson") { return true }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
      let handle = FileHandle(forReadingAtPath: path)
    else { return false }
    defer { try? handle.close() }
    let head = (try? handle.read(upToCount: 64)) ?? Data()
    return head.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 } == UInt8(ascii: "{")
  }
}

/// Gives the flow one frame of measurements at a time.
protocol MeasurementInput: AnyObject {
  /// The next frame's measurements, nil at the end. Frames that could not be
  /// measured are reported through `note` and skipped.
  func next(note: (InputNote) -> Void) throws(WorkbenchError) -> MeasurementFrame?
  /// The frame `next` returned was given to the flow (a recording keeps
  /// exactly those frames).
  func frameWasProcessed()
  /// What the session event says about the input.
  var description: JSONObject { get }
  /// Counts for the result record.
  var counters: InputCounters { get }
  func close()
}

/// Something about the input worth an event.
enum InputNote {
  /// A frame was corrupt or could not be decoded.
  case skipped(index: Int64, t: Double, reason: String)
  /// Frames were dropped because the estimators fell behind a live camera.
  case dropped(count: Int, total: Int, t: Double, index: Int64)
}

struct InputCounters {
  var skipped = 0
  var dropped = 0
  /// The camera went away mid-run (unplugged).
  var cameraLost = false
}

/// A measurement trace.
final class TraceInput: MeasurementInput {
  private var reader: TraceReader
  let path: String

  init(path: String, schema: MeasurementSchema) throws(WorkbenchError) {
    self.path = path
    reader = try TraceReader(path: path, schema: schema)
  }

  func next(note: (InputNote) -> Void) throws(WorkbenchError) -> MeasurementFrame? { try reader.next() }
  func frameWasProcessed() {}

  var description: JSONObject {
    JSONObject([("kind", .string("trace")), ("name", .string(WorkbenchHome.display(path)))])
  }

  var counters: InputCounters { InputCounters() }
  func close() {}
}

/// Frames from a camera or a recording, measured by the estimators.
final class FrameInput: MeasurementInput {
  private let source: any FrameSource
  private let pipeline: FramePipeline
  private(set) var counters = InputCounters()
  private let mailbox: LatestFrameMailbox?

  /// A live source is read on its own thread into a one-frame mailbox, so
  /// that when the estimators fall behind, frames are dropped (and counted)
  /// instead of queueing without bound.
  private let recorder: FrameRecorder?
  private var lastCaptured: CapturedFrame?
  private let policy: RecordPolicy
  private var recordingError: CaptureError?
  private let detectionNodes: (faces: Int?, card: Int?)

  init(
    source: any FrameSource, pipeline: FramePipeline, live: Bool, recorder: FrameRecorder? = nil,
    policy: RecordPolicy = .always
  ) {
    self.source = source
    self.pipeline = pipeline
    self.recorder = recorder
    self.policy = policy
    if recorder != nil && policy == .detections {
      // Created once, before the first frame, so the ids stay stable.
      detectionNodes = (
        try? pipeline.schema.node(path: "face.count").get(), try? pipeline.schema.node(path: "card.found").get()
      )
    } else {
      detectionNodes = (nil, nil)
    }
    mailbox = live ? LatestFrameMailbox(source: source) : nil
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

  func frameWasProcessed() {
    guard let frame = lastCaptured, let recorder, recordingError == nil else { return }
    lastCaptured = nil
    if policy == .detections, !hasDetection(pipeline.lastMeasured) { return }
    do { try recorder.record(frame) } catch { recordingError = error }
  }

  /// Keeps the images of the frame being processed in `folder` (ctx.capture).
  func capture(_ name: String, into folder: ArtifactFolder) throws(WorkbenchError) -> CaptureFiles {
    try folder.capture(
      name, frame: lastCaptured, decoded: pipeline.lastDecoded, estimators: pipeline.estimators)
  }

  /// Completes the recording, or deletes it when the policy says not to
  /// keep it for this outcome.
  func finishRecording(flowPassed: Bool) throws(CaptureError) {
    guard let recorder else { return }
    if let recordingError { throw recordingError }
    switch policy {
    case .failed where flowPassed, .passed where !flowPassed:
      recorder.discard()
    default:
      try recorder.finish()
    }
  }

  func next(note: (InputNote) -> Void) throws(WorkbenchError) -> MeasurementFrame? {
    while true {
      let captured: CapturedFrame?
      do {
        if let mailbox {
          let (frame, dropped) = try mailbox.take()
          if dropped > 0, let frame {
            counters.dropped += dropped
            note(.dropped(count: dropped, total: counters.dropped, t: frame.t, index: frame.index))
          }
          captured = frame
        } else {
          captured = try source.next()
        }
      } catch {
        if error.kind == .disconnected { counters.cameraLost = true }
        throw FrameInput.workbenchError(error)
      }
      guard let captured else { return nil }
      switch pipeline.measure(captured) {
      case .measured(let measurements):
        lastCaptured = captured
        return measurements
      case .skipped(let reason):
        counters.skipped += 1
        note(.skipped(index: captured.index, t: captured.t, reason: reason))
      }
    }
  }

  var description: JSONObject {
    let info = source.info
    var object = JSONObject([("kind", .string(info.kind)), ("name", .string(info.name))])
    if let width = info.width { object["width"] = .integer(Int64(width)) }
    if let height = info.height { object["height"] = .integer(Int64(height)) }
    if let fps = info.fps { object["fps"] = .number(fps) }
    object["estimators"] = .array(pipeline.estimators.map { .string($0.descriptor.name) })
    return object
  }

  func close() {
    mailbox?.stop()
    source.close()
  }

  static func workbenchError(_ error: CaptureError) -> WorkbenchError {
    WorkbenchError(.input, error.message, at: SourceLocation(file: error.source), help: error.help)
  }
}

/// One slot between a capture thread and the frame loop: the capture thread
/// always replaces what is there, so the loop gets the newest frame and the
/// frames it never saw are counted as dropped.
final class LatestFrameMailbox: @unchecked Sendable {
  private let condition = NSCondition()
  private var slot: CapturedFrame?
  private var droppedSinceTake = 0
  private var finished = false
  private var failure: CaptureError?
  private var stopping = false
  private var thread: Thread?

  init(source: any FrameSource) {
    let box = SourceBox(source)
    let thread = Thread { [weak self] in self?.run(box.source) }
    thread.name = "workbench-capture"
    self.thread = thread
    thread.start()
  }

  private final class SourceBox: @unchecked Sendable {
    let source: any FrameSource
    init(_ source: any FrameSource) { self.source = source }
  }

  private func run(_ source: any FrameSource) {
    while true {
      condition.lock()
      let stop = stopping
      condition.unlock()
      if stop { return }
      let result: Result<CapturedFrame?, CaptureError>
      do {
        result = .success(try source.next())
      } catch {
        result = .failure(error)
      }
      condition.lock()
      switch result {
      case .success(let frame?):
        if slot != nil { droppedSinceTake += 1 }
        slot = LatestFrameMailbox.owned(frame)
      case .success(nil):
        finished = true
      case .failure(let error):
        failure = error
      }
      condition.broadcast()
      condition.unlock()
      if case .success(nil) = result { return }
      if case .failure = result { return }
    }
  }

  /// A frame whose pixels no longer belong to the source, which reuses its
  /// buffers for the next frame.
  private static func owned(_ frame: CapturedFrame) -> CapturedFrame {
    guard case .image(let image) = frame.payload else { return frame }
    return CapturedFrame(index: frame.index, t: frame.t, payload: .image(image.copy()))
  }

  /// Waits for the newest frame; nil when the source ended.
  func take() throws(CaptureError) -> (CapturedFrame?, dropped: Int) {
    condition.lock()
    defer { condition.unlock() }
    // Short waits, so that Ctrl-C is noticed even when no frame comes.
    while slot == nil && !finished && failure == nil && !stopping && !Interrupts.pending {
      _ = condition.wait(until: Date(timeIntervalSinceNow: 0.1))
    }
    if let frame = slot {
      slot = nil
      let dropped = droppedSinceTake
      droppedSinceTake = 0
      return (frame, dropped)
    }
    if let failure { throw failure }
    return (nil, 0)
  }

  func stop() {
    condition.lock()
    stopping = true
    condition.broadcast()
    condition.unlock()
  }
}
