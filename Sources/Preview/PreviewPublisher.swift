import Capture
import Diagnostics
import Foundation
import Imaging
import JSONCore
import Measurements
import Reporting
import Session

/// What the preview page shows, kept up to date by the run and read by the
/// server's threads: the run's events (steps, hints, statuses, controls,
/// the result) and, when a page has asked for one, the newest frame with
/// its measurements.
///
/// The frame loop never waits for a page: it hands over a frame only when
/// one was asked for since the last, and a slow page simply asks less often.
/// The frames it did not hand over are counted (`frames_not_sent`).
public final class PreviewPublisher: EventSink, RunOutput, @unchecked Sendable {
  /// One frame as the page gets it.
  public struct Frame: Sendable {
    /// Counts the frames handed to pages, across restarts (a restarted
    /// recording numbers its frames from 0 again).
    public var sequence: Int64
    public var index: Int64
    public var t: Double
    /// The trace line of its measurements (docs/traces.md), newline and all.
    public var measurements: [UInt8]
    /// The image: a camera's or a recording's JPEG as it came, or pixels
    /// encoded when a page asks for them; nil for a measurement trace.
    public var picture: Picture?
    /// What the estimators drew on it (``OverlayDrawing``); written out as
    /// JSON on the page's request, off the frame loop.
    public var overlays: JSONObject
  }

  /// Asked on the frame loop for the shapes the estimators saw on a frame
  /// a page wants (the session's `currentOverlays`).
  public var overlays: (() -> JSONObject)?

  /// A frame's image for a page. Pixels are copied on the frame loop
  /// (a memory copy) and encoded on the page's request, off the loop.
  public final class Picture: @unchecked Sendable {
    private let lock = NSLock()
    private var jpeg: [UInt8]?
    private var pixels: ImageBuffer?

    init(jpeg: [UInt8]) { self.jpeg = jpeg }
    init(pixels: ImageBuffer) { self.pixels = pixels }

    /// The JPEG, encoded once with `encoder` (which the caller holds alone).
    func jpeg(using encoder: JPEGEncoder) -> [UInt8]? {
      lock.withLock {
        if jpeg == nil, let pixels {
          jpeg = try? encoder.encode(pixels, quality: 75)
          self.pixels = nil
        }
        return jpeg
      }
    }
  }

  private let lock = NSLock()
  private var encoder: TraceLineEncoder?
  /// Encodes pictures for pages: one at a time, on their requests.
  private let imageEncoder = JPEGEncoder()
  private let imageEncoderLock = NSLock()
  /// Bumped on every change the page could show.
  private var version: Int64 = 0
  private var state = LiveView()
  private var frameWanted = false
  private var latest: Frame?
  /// The pictures of the last few frames handed over, by sequence: two pages
  /// open at once each get the image of the frame they were given.
  private var recentPictures: [(sequence: Int64, picture: Picture?)] = []
  private static let recentCount = 4
  private var framesProcessed: Int64 = 0
  private var framesSent: Int64 = 0
  /// The last frame processed and not handed over: handed over when the
  /// input ends, so that a page opened after a short recording ended still
  /// shows its last picture. No copy is made until then.
  private var unsent: (measurements: MeasurementFrame, captured: CapturedFrame?)?

  /// The most frames a second handed to pages: what a person watching can
  /// follow, and a bound on what the pages cost the run however fast they ask.
  public let maximumFramesPerSecond: Double
  private let minimumInterval: UInt64
  private var lastHandedOver: UInt64 = 0

  public static let defaultFramesPerSecond = 15.0

  public init(maximumFramesPerSecond: Double = PreviewPublisher.defaultFramesPerSecond) {
    self.maximumFramesPerSecond = maximumFramesPerSecond
    minimumInterval = UInt64(1e9 / max(0.1, maximumFramesPerSecond))
  }

  /// The run's measurement schema: set by the session before its first frame.
  public func attach(schema: MeasurementSchema) { encoder = TraceLineEncoder(schema: schema) }

  // MARK: The run's side

  /// The flow has loaded: the page can name it and its steps before the
  /// first frame (a camera may take a while to give one).
  public func flowLoaded(name: String, file: String, steps: [String]) {
    lock.withLock {
      state.flowLoaded(name: name, file: file, steps: steps)
      version += 1
    }
  }

  public func emit(_ event: Event) {
    lock.lock()
    state.apply(event)
    version += 1
    // The input has ended: no frame follows, and the source no longer writes
    // the last frame's buffer, so it can be copied for the pages to come.
    let last = event.type == "result" && event["reason"]?.stringValue == "end_of_input" ? unsent : nil
    if last != nil { unsent = nil }
    lock.unlock()
    if let last { handOver(last.measurements, captured: last.captured) }
  }

  public func finish() throws(WorkbenchError) {
    lock.lock()
    state.finished = true
    version += 1
    lock.unlock()
  }

  public func frameProcessed(_ measurements: MeasurementFrame, captured: CapturedFrame?) {
    lock.lock()
    framesProcessed += 1
    state.frame = measurements.index
    state.t = measurements.t
    version += 1
    let now = DispatchTime.now().uptimeNanoseconds
    // The frame the flow decided on is kept whether or not a page asked:
    // the run then waits, and a page may come later.
    let wanted = frameWanted && now &- lastHandedOver >= minimumInterval || state.result != .null
    if wanted {
      frameWanted = false
      lastHandedOver = now
      unsent = nil
    } else {
      unsent = (measurements, captured)
    }
    lock.unlock()
    if wanted { handOver(measurements, captured: captured) }
  }

  /// Makes `measurements` and its picture the frame pages get next.
  private func handOver(_ measurements: MeasurementFrame, captured: CapturedFrame?) {
    // Outside the lock: the page's threads only wait for it.
    let line = encoder?.line(measurements) ?? Array("{}\n".utf8)
    var picture: Picture?
    switch captured?.payload {
    case .jpeg(let bytes): picture = Picture(jpeg: bytes)
    // The source reuses its buffer for the next frame: a copy.
    case .image(let image): picture = Picture(pixels: image.copy())
    case .unreadable, nil: picture = nil
    }
    let shapes = overlays?() ?? JSONObject()
    lock.lock()
    framesSent += 1
    latest = Frame(
      sequence: framesSent, index: measurements.index, t: measurements.t, measurements: line, picture: picture,
      overlays: shapes)
    recentPictures.append((framesSent, picture))
    if recentPictures.count > Self.recentCount { recentPictures.removeFirst() }
    version += 1
    lock.unlock()
  }

  public func finish(_ run: FinishedRun) throws(WorkbenchError) {}

  // MARK: The page's side (never waits: the server polls)

  /// The state as `GET /api/state` answers it, or nil when it is not newer
  /// than `version`.
  public func state(newerThan version: Int64?) -> JSONValue? {
    lock.lock()
    defer { lock.unlock() }
    if let version, self.version <= version, !state.finished { return nil }
    return snapshot()
  }

  /// The newest frame after `sequence`; when there is none, the loop is
  /// asked to hand over its next one.
  public func frame(after sequence: Int64?) -> Frame? {
    lock.lock()
    defer { lock.unlock() }
    if let latest, sequence.map({ latest.sequence > $0 }) ?? true { return latest }
    frameWanted = true
    return nil
  }

  /// The run has closed: nothing newer will come.
  public var isFinished: Bool {
    lock.lock()
    defer { lock.unlock() }
    return state.finished
  }

  /// The JPEG of one of the last frames handed to pages, by its sequence.
  public func image(of sequence: Int64) -> [UInt8]? {
    let picture: Picture? = lock.withLock {
      recentPictures.last { $0.sequence == sequence }?.picture
    }
    guard let picture else { return nil }
    return imageEncoderLock.withLock { picture.jpeg(using: imageEncoder) }
  }

  /// How many frames the run processed and how many went to a page.
  public var counters: (processed: Int64, sent: Int64) {
    lock.lock()
    defer { lock.unlock() }
    return (framesProcessed, framesSent)
  }

  private func snapshot() -> JSONValue {
    var object = state.json
    object["version"] = .integer(version)
    object["preview"] = .object(
      JSONObject([
        ("frames_processed", .integer(framesProcessed)), ("frames_sent", .integer(framesSent)),
        ("frames_not_sent", .integer(framesProcessed - framesSent)),
      ]))
    return .object(object)
  }
}

/// The run as the page shows it, made from its events.
struct LiveView {
  struct Step {
    var name: String
    var state = "waiting"
  }

  var flow = ""
  var file = ""
  var language = "en"
  var frame: Int64 = 0
  var t = 0.0
  var paused = false
  var finished = false
  var timeLimit = 0.0
  var flowStartT: Double?
  var steps: [Step] = []
  var current: JSONObject?
  var currentStartT = 0.0
  var watchThresholds: JSONValue = .array([])
  var hint: JSONObject?
  var statuses: [JSONValue] = []
  var result: JSONValue = .null
  var reloadError: JSONValue = .null
  var lastControl: JSONValue = .null
  var framesDropped: Int64 = 0
  var framesSkipped: Int64 = 0
  var runs = 0
  /// A restart or reload was taken: its run is counted, and its `session`
  /// event (with its first frame) does not count it again.
  var startedOver = false

  mutating func flowLoaded(name: String, file: String, steps: [String]) {
    guard runs == 0 else { return }
    flow = name
    self.file = file
    self.steps = steps.map { Step(name: $0) }
  }

  mutating func apply(_ event: Event) {
    switch event.type {
    case "session":
      if startedOver { startedOver = false } else { runs += 1 }
      flow = event["flow"]?.stringValue ?? flow
      file = event["file"]?.stringValue ?? file
      language = event["lang"]?.stringValue ?? language
      timeLimit = event["time_limit"]?.doubleValue ?? 0
      flowStartT = event.t
      steps = (event["order"]?.arrayValue ?? []).compactMap(\.stringValue).map { Step(name: $0) }
      watchThresholds = event["thresholds"] ?? .array([])
      current = nil
      hint = nil
      statuses = []
      result = .null
      paused = false
    case "step":
      let index = Int(event["index"]?.integerValue ?? 0) - 1
      let stepState = event["state"]?.stringValue ?? ""
      if steps.indices.contains(index) { steps[index].state = stepState == "started" ? "running" : stepState }
      if stepState == "started" {
        current = event.fields
        currentStartT = event.t
      } else if current?["index"] == event["index"] {
        current = nil
      }
    case "hint":
      hint = event.fields
    case "status":
      statuses.append(event.jsonValue)
      if statuses.count > 8 { statuses.removeFirst(statuses.count - 8) }
    case "result":
      result = event.jsonValue
      current = nil
    case "control":
      lastControl = event.jsonValue
      switch event["action"]?.stringValue {
      case "pause": paused = true
      case "resume": paused = false
      case "reload_failed": reloadError = event.jsonValue
      case "reload", "restart":
        reloadError = .null
        startOver()
        return
      default: break
      }
    case "frames_dropped":
      framesDropped = event["total"]?.integerValue ?? framesDropped
    case "frame_skipped":
      framesSkipped += 1
    default:
      break
    }
    frame = max(frame, event.frame)
    t = event.t
  }

  /// A restart or a reload that loaded: the state just after it is the new
  /// run's, before its first frame (the answer to the control holds it).
  private mutating func startOver() {
    runs += 1
    startedOver = true
    steps = steps.map { Step(name: $0.name) }
    current = nil
    hint = nil
    statuses = []
    result = .null
    paused = false
    frame = 0
    t = 0
  }

  var status: String {
    if finished { return "closed" }
    if result != .null { return "ended" }
    return paused ? "paused" : "running"
  }

  var json: JSONObject {
    var object = JSONObject()
    object["flow"] = .string(flow)
    object["file"] = .string(file)
    object["lang"] = .string(language)
    object["frame"] = .integer(frame)
    object["t"] = .number(t.roundedToMicroseconds)
    object["paused"] = .bool(paused)
    object["status"] = .string(status)
    object["runs"] = .integer(Int64(runs))
    object["time_limit"] = .number(timeLimit)
    object["flow_started_at"] = flowStartT.map { .number($0) } ?? .null
    if var current {
      current["started_at"] = .number(currentStartT)
      object["step"] = .object(current)
    } else {
      object["step"] = .null
    }
    object["steps"] = .array(
      steps.map { .object(JSONObject([("name", .string($0.name)), ("state", .string($0.state))])) })
    object["watch_thresholds"] = watchThresholds
    object["hint"] = hint.map { .object($0) } ?? .null
    object["statuses"] = .array(statuses)
    object["result"] = result
    object["reload_error"] = reloadError
    object["last_control"] = lastControl
    object["frames_dropped"] = .integer(framesDropped)
    object["frames_skipped"] = .integer(framesSkipped)
    return object
  }
}
