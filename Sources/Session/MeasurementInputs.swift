import Capture
import Diagnostics
import Estimators
import Flows
import Foundation
import Interrupts
import JSONCore
import Measurements
import Settings

/// Gives the flow one frame of measurements at a time. QA faults wrap an
/// input in another (`RunSession.wrapInput`), so the frame loop never
/// knows whether it is being tested.
public protocol MeasurementInput: AnyObject {
  /// The next frame's measurements, nil at the end. Frames that could not be
  /// measured are reported through `note` and skipped.
  func next(note: (InputNote) -> Void) throws(WorkbenchError) -> MeasurementFrame?
  /// What the session event says about the input.
  var description: JSONObject { get }
  /// Counts for the result record.
  var counters: InputCounters { get }
  /// The fields the input adds to the result record (frames skipped and dropped).
  var resultFields: JSONObject { get }
  /// A camera: frames keep coming whether or not the flow takes them.
  var isLive: Bool { get }
  func close()
}

/// An input that passes on another's frames, changed, dropped or repeated:
/// everything but `next` is the other input's.
public protocol WrappingMeasurementInput: MeasurementInput {
  var base: any MeasurementInput { get }
}

extension WrappingMeasurementInput {
  public var description: JSONObject { base.description }
  public var counters: InputCounters { base.counters }
  public var resultFields: JSONObject { base.resultFields }
  public var isLive: Bool { base.isLive }
  public func close() { base.close() }
}

/// Something about the input worth an event.
public enum InputNote {
  /// A frame was corrupt or could not be decoded.
  case skipped(index: Int64, t: Double, reason: String)
  /// Frames were dropped because the estimators fell behind a live camera.
  case dropped(count: Int, total: Int, t: Double, index: Int64)
}

public struct InputCounters: Sendable {
  public var skipped = 0
  public var dropped = 0
  /// The camera went away mid-run (unplugged).
  public var cameraLost = false

  public init() {}
}

/// A measurement trace.
final class TraceInput: MeasurementInput {
  private var reader: TraceReader
  let path: String

  init(path: String, schema: MeasurementSchema, read: ReadTrace? = nil) throws(WorkbenchError) {
    self.path = path
    if let read, read.path == path {
      reader = TraceReader(read, schema: schema)
    } else {
      reader = try TraceReader(path: path, schema: schema, interrupted: { Interrupts.pending })
    }
  }

  func next(note: (InputNote) -> Void) throws(WorkbenchError) -> MeasurementFrame? { try reader.next() }

  var description: JSONObject {
    JSONObject([("kind", .string("trace")), ("name", .string(WorkbenchHome.display(path)))])
  }

  var counters: InputCounters { InputCounters() }
  var resultFields: JSONObject { JSONObject() }
  var isLive: Bool { false }
  func close() {}
}

/// Frames from a camera or a recording, measured by the estimators.
final class FrameInput: MeasurementInput {
  private let source: any FrameSource
  let pipeline: FramePipeline
  private(set) var counters = InputCounters()
  /// A live source is read on its own thread into a one-frame mailbox, so
  /// that when the estimators fall behind, frames are dropped (and counted)
  /// instead of queueing without bound.
  private let mailbox: LatestFrameMailbox?
  /// The frame whose measurements `next` returned last, as captured.
  private(set) var currentFrame: CapturedFrame?
  /// Frames the source gave (skipped ones too), the time of the last, and
  /// whether it said it had no more.
  private var framesRead = 0
  private var lastTime: Double?
  private var reachedEnd = false

  init(source: any FrameSource, pipeline: FramePipeline, live: Bool) {
    self.source = source
    self.pipeline = pipeline
    if let width = source.info.width, let height = source.info.height {
      source.preferHalfSize(pipeline.readsHalfSize(width: width, height: height))
    }
    mailbox = live ? LatestFrameMailbox(source: source) : nil
  }

  var isLive: Bool { mailbox != nil }

  var sourceInfo: SourceInfo { source.info }

  var resultFields: JSONObject {
    var fields = JSONObject([
      ("frames_skipped", .integer(Int64(counters.skipped))),
      ("frames_dropped", .integer(Int64(counters.dropped))),
    ])
    if let cut = shortfall {
      fields["input_incomplete"] = .object(
        JSONObject([
          ("frames_declared", cut.declaredFrames.map { .integer(Int64($0)) } ?? .null),
          ("duration_declared", cut.declaredSeconds.map { .number($0.roundedToMicroseconds) } ?? .null),
          ("frames_read", .integer(Int64(cut.frames))), ("duration_read", .number(cut.seconds.roundedToMicroseconds)),
        ]))
    }
    return fields
  }

  /// What the recording's container said it holds, when that is more than
  /// was read to its end: a file cut short or damaged, not a short one.
  struct Shortfall {
    var declaredFrames: Int?
    var declaredSeconds: Double?
    var frames: Int
    var seconds: Double

    var text: String {
      func count(_ frames: Int?, _ seconds: Double?) -> String {
        [frames.map { "\($0) frames" }, seconds.map { String(format: "%.1f s", $0) }].compactMap { $0 }
          .joined(separator: " or ")
      }
      return
        "the container declared \(count(declaredFrames, declaredSeconds)), and \(count(frames, seconds)) were read: "
        + "the file is cut short or damaged (the run ended at what could be read)"
    }
  }

  var shortfall: Shortfall? {
    guard reachedEnd, !isLive else { return nil }
    let info = source.info
    let declaredFrames = info.details["declared_frames"].flatMap(Int.init)
    let declaredSeconds = info.details["declared_duration"].flatMap(Double.init)
    let interval = info.fps.map { 1 / $0 } ?? 0
    let seconds = lastTime.map { $0 + interval } ?? 0
    // One frame or a twentieth of a second of slack: containers round their counts.
    let missingFrames = declaredFrames.map { framesRead < $0 - 1 } ?? false
    let missingTime = declaredSeconds.map { seconds < $0 - max(interval, 0.05) - 0.5 } ?? false
    guard missingFrames || declaredFrames == nil && missingTime else { return nil }
    return Shortfall(
      declaredFrames: declaredFrames, declaredSeconds: declaredSeconds, frames: framesRead, seconds: seconds)
  }

  /// Keeps the images of the frame being processed in `folder` (ctx.capture).
  func capture(_ name: String, into folder: ArtifactFolder) throws(WorkbenchError) -> CaptureFiles {
    try folder.capture(
      name, frame: currentFrame, decoded: pipeline.lastDecoded, estimators: pipeline.estimators)
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
      guard let captured else {
        reachedEnd = true
        return nil
      }
      framesRead += 1
      lastTime = captured.t
      switch pipeline.measure(captured) {
      case .measured(let measurements):
        currentFrame = captured
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
    if let frames = info.details["declared_frames"].flatMap(Int64.init) { object["frames_declared"] = .integer(frames) }
    if let seconds = info.details["declared_duration"].flatMap(Double.init) {
      object["duration_declared"] = .number(seconds.roundedToMicroseconds)
    }
    // A video file says what it is and where its times come from (its presentation timestamps).
    if info.kind == RecordingSource.Format.video.rawValue {
      for key in ["container", "codec", "timing"] { if let value = info.details[key] { object[key] = .string(value) } }
      if let rotation = info.details["rotation"].flatMap(Int64.init) { object["rotation"] = .integer(rotation) }
      if info.details["mirrored"] == "true" { object["mirrored"] = .bool(true) }
    }
    object["estimators"] = .array(pipeline.estimators.map { .string($0.descriptor.name) })
    return object
  }

  func close() {
    if let mailbox {
      mailbox.close()
    } else {
      source.close()
    }
  }

  static func workbenchError(_ error: CaptureError) -> WorkbenchError {
    WorkbenchError(.input, error.message, at: SourceLocation(file: error.source), help: error.help)
  }
}

extension FlowRunner {
  /// Input notes become events at the frame they concern.
  func note(_ note: InputNote) {
    switch note {
    case .skipped(let index, let t, let reason):
      frameSkipped(index: index, t: t, reason: reason)
    case .dropped(let count, let total, let t, let index):
      framesDropped(count: count, total: total, t: t, index: index)
    }
  }
}
