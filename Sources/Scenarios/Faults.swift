import Capture
import Diagnostics
import Flows
import Foundation
import Imaging
import JSONCore
import Measurements
import Randomness
import Session

/// A fault a scenario injects into the frames, their times or the
/// measurements (docs/qa.md). Times are seconds on the input's clock.
public enum Fault: Sendable, Equatable {
  /// Drop each frame with this probability (from the scenario's seed).
  case dropRate(Double)
  /// Drop the frames with these numbers.
  case dropFrames([Int64])
  /// Deliver the frame at `at` this many more times, with the same time.
  case duplicate(at: Double, count: Int)
  /// From `from` to `to`, every frame shows the last picture before `from` (a stuck camera).
  case freeze(from: Double, to: Double)
  /// The frame at `at` and the next one swap places (their times too).
  case reorder(at: Double)
  /// Every frame's time moves by up to ± this many seconds (kept increasing).
  case jitter(Double)
  /// Pixel faults over a window.
  case pixels(ImageDegradation, from: Double, to: Double)
  /// A black patch over part of the picture (fractions of the frame).
  case occlude(x: Double, y: Double, w: Double, h: Double, from: Double, to: Double)
  /// The frame with this number arrives as a corrupt JPEG.
  case corrupt(frame: Int64)
  /// The camera goes away at this time.
  case unplug(at: Double)
  /// The whole input plays this many times in a row (a replayed video).
  case replay(times: Int)
  /// A measurement changed over a window: `field += add`, `field *= scale`, or `field = set`.
  case measure(field: String, add: Double?, scale: Double?, set: JSONValue?, from: Double, to: Double)
  /// Whoever drives the session closes it after the first frame at or
  /// after this time, as when the person cancels: the run ends `closed`.
  case close(at: Double)

  var touchesFrames: Bool {
    switch self {
    case .measure, .close: return false
    default: return true
    }
  }

  /// When the session is closed (the earliest `close` fault), if ever.
  static func closeTime(_ faults: [Fault]) -> Double? {
    faults.compactMap { fault -> Double? in
      if case .close(let at) = fault { return at }
      return nil
    }.min()
  }

  static let kinds = [
    "drop", "drop_frames", "duplicate", "freeze", "reorder", "jitter_ms", "glare", "darken", "blur", "noise",
    "occlude", "corrupt", "unplug", "replay", "measure", "close",
  ]

  /// A fault from its table, such as `{ drop = 0.1 }` or `{ glare = { from = 1, to = 2, share = 0.2 } }`.
  static func parse(_ value: JSONValue, key: String, file: String) throws(WorkbenchError) -> Fault {
    func fail(_ message: String, help: String? = nil) -> WorkbenchError {
      WorkbenchError(.usage, message, at: SourceLocation(file: file, key: key), help: help)
    }
    guard let table = value.objectValue, table.count == 1, let (kind, spec) = table.first(where: { _ in true }) else {
      throw fail(
        "a fault is a table with one kind, such as { drop = 0.1 } or { unplug = { at = 2 } }",
        help: "kinds: " + kinds.joined(separator: ", "))
    }
    func number(_ name: String, default fallback: Double? = nil) throws(WorkbenchError) -> Double {
      if let value = spec[name]?.doubleValue { return value }
      if let fallback { return fallback }
      throw fail("\(kind): needs \(name) = <number>")
    }
    func window() throws(WorkbenchError) -> (Double, Double) {
      let from = try number("from", default: 0)
      let to = try number("to", default: .infinity)
      guard to >= from else { throw fail("\(kind): to (\(to)) is before from (\(from))") }
      return (from, to)
    }
    switch kind {
    case "drop":
      guard let rate = spec.doubleValue, (0...1).contains(rate) else {
        throw fail("drop takes the share of frames to drop, from 0 to 1: { drop = 0.1 }")
      }
      return .dropRate(rate)
    case "drop_frames":
      guard let list = spec.arrayValue?.compactMap(\.integerValue), !list.isEmpty else {
        throw fail("drop_frames takes a list of frame numbers: { drop_frames = { 10, 11 } }")
      }
      return .dropFrames(list)
    case "duplicate":
      return .duplicate(at: try number("at"), count: Int(try number("count", default: 1)))
    case "freeze":
      let (from, to) = try window()
      return .freeze(from: from, to: to)
    case "reorder":
      return .reorder(at: try number("at"))
    case "jitter_ms":
      guard let ms = spec.doubleValue, ms >= 0 else { throw fail("jitter_ms takes milliseconds: { jitter_ms = 5 }") }
      return .jitter(ms / 1000)
    case "glare":
      let (from, to) = try window()
      return .pixels(
        .glare(
          share: try number("share", default: 0.15), x: try number("x", default: 0.5), y: try number("y", default: 0.4)),
        from: from, to: to)
    case "darken":
      let (from, to) = try window()
      return .pixels(.darken(factor: try number("factor", default: 0.25)), from: from, to: to)
    case "blur":
      let (from, to) = try window()
      return .pixels(.blur(radius: Int(try number("radius", default: 6))), from: from, to: to)
    case "noise":
      let (from, to) = try window()
      return .pixels(.noise(amplitude: Int(try number("amplitude", default: 40))), from: from, to: to)
    case "occlude":
      let (from, to) = try window()
      return .occlude(
        x: try number("x", default: 0.3), y: try number("y", default: 0.3), w: try number("w", default: 0.4),
        h: try number("h", default: 0.4), from: from, to: to)
    case "corrupt":
      guard let frame = spec["frame"]?.integerValue ?? spec.integerValue else {
        throw fail("corrupt takes the frame number: { corrupt = { frame = 10 } }")
      }
      return .corrupt(frame: frame)
    case "unplug":
      return .unplug(at: try number("at"))
    case "close":
      guard let at = spec["at"]?.doubleValue ?? spec.doubleValue, at >= 0 else {
        throw fail("close takes the time the session is closed: { close = { at = 2 } }")
      }
      return .close(at: at)
    case "replay":
      let times = spec.integerValue ?? spec["times"]?.integerValue ?? 2
      guard times >= 1, times <= 100 else { throw fail("replay takes how many times the input plays, 1 to 100") }
      return .replay(times: Int(times))
    case "measure":
      guard let field = spec["field"]?.stringValue else {
        throw fail("measure needs field = \"face.yaw\" and one of add, scale, set or remove")
      }
      let (from, to) = try window()
      let add = spec["add"]?.doubleValue
      let scale = spec["scale"]?.doubleValue
      if let remove = spec["remove"], remove != .bool(true) {
        throw fail("measure's remove takes true: { field = \"face.pitch\", remove = true }")
      }
      // remove = true makes the measurement absent: a null to set.
      let set = spec["remove"] != nil ? JSONValue.null : spec["set"]
      let given = [add != nil, scale != nil, spec["set"] != nil, spec["remove"] != nil]
      guard given.filter({ $0 }).count == 1 else {
        throw fail("measure needs exactly one of add = N, scale = N, set = VALUE or remove = true")
      }
      return .measure(field: field, add: add, scale: scale, set: set, from: from, to: to)
    default:
      let suggestion = Suggestions.closest(to: kind, in: kinds)
      throw fail(
        "unknown fault '\(kind)'",
        help: suggestion.map { "did you mean '\($0)'?" } ?? "kinds: " + kinds.joined(separator: ", "))
    }
  }
}

/// A frame source with the scenario's frame and time faults applied.
final class FaultySource: FrameSource {
  private let inner: any FrameSource
  private let faults: [Fault]
  private var random: SeededRandom
  private var pending: [CapturedFrame] = []
  private var frozen: FramePayload?
  private var lastT = -Double.infinity
  private var replayBuffer: [CapturedFrame] = []
  private var replaysLeft: Int
  private var replayQueue: [CapturedFrame] = []
  private var replayOffset = 0.0
  private var replayIndexOffset: Int64 = 0
  private var innerEnded = false
  /// Faults that happen once (duplicate, reorder) and have.
  private var fired = Set<Int>()
  private let decoder = JPEGDecoder()
  private let encoder = JPEGEncoder()
  /// Frames kept for a replay; more than this and the replay stops short.
  static let replayLimit = 3000

  init(_ inner: any FrameSource, faults: [Fault], seed: UInt64) {
    self.inner = inner
    self.faults = faults
    random = SeededRandom(state: seed)
    var times = 1
    for fault in faults { if case .replay(let n) = fault { times = n } }
    replaysLeft = times - 1
  }

  var info: SourceInfo { inner.info }
  func close() { inner.close() }

  func next() throws(CaptureError) -> CapturedFrame? {
    while true {
      if !pending.isEmpty { return pending.removeFirst() }
      guard var frame = try nextRaw() else { return nil }
      var dropped = false
      for fault in faults {
        switch fault {
        case .dropRate(let rate): if random.nextDouble() < rate { dropped = true }
        case .dropFrames(let list): if list.contains(frame.index) { dropped = true }
        case .unplug(let at):
          if frame.t >= at {
            throw CaptureError(
              .disconnected, source: inner.info.name, "the camera went away (injected fault: unplug at \(at) s)",
              help: "this scenario unplugs the camera on purpose")
          }
        default: break
        }
      }
      if dropped { continue }
      try applyPixelFaults(&frame)
      for fault in faults {
        if case .jitter(let amount) = fault {
          frame.t = max(lastT + 1e-6, frame.t + (random.nextDouble() * 2 - 1) * amount)
        }
      }
      for (number, fault) in faults.enumerated() {
        switch fault {
        case .duplicate(let at, let count) where frame.t >= at && fired.insert(number).inserted:
          for _ in 0..<count { pending.append(frame) }
        case .reorder(let at) where frame.t >= at && fired.insert(number).inserted:
          if var following = try nextRaw() {
            try applyPixelFaults(&following)
            // The later frame comes first, each keeping its own time.
            let firstT = frame.t
            frame.t = following.t
            following.t = firstT
            pending.append(frame)
            lastT = following.t
            return following
          }
        default: break
        }
      }
      lastT = max(lastT, frame.t)
      return frame
    }
  }

  /// The gap between frames, for faults that name one moment.
  private var frameGap: Double { 1 / (inner.info.fps ?? 30) }

  private func nextRaw() throws(CaptureError) -> CapturedFrame? {
    if !replayQueue.isEmpty {
      var frame = replayQueue.removeFirst()
      frame.t += replayOffset
      frame.index += replayIndexOffset
      return frame
    }
    if !innerEnded, let frame = try inner.next() {
      if replaysLeft > 0 && replayBuffer.count < FaultySource.replayLimit { replayBuffer.append(frame) }
      return frame
    }
    innerEnded = true
    guard replaysLeft > 0, let first = replayBuffer.first, let last = replayBuffer.last else { return nil }
    replaysLeft -= 1
    // The clip plays again straight after itself, on a clock that goes on.
    replayOffset += last.t - first.t + frameGap
    replayIndexOffset += last.index - first.index + 1
    replayQueue = replayBuffer
    return try nextRaw()
  }

  private func applyPixelFaults(_ frame: inout CapturedFrame) throws(CaptureError) {
    var degradations: [ImageDegradation] = []
    var patches: [(Double, Double, Double, Double)] = []
    var freeze = false
    for fault in faults {
      switch fault {
      case .pixels(let degradation, let from, let to) where frame.t >= from && frame.t <= to:
        degradations.append(degradation)
      case .occlude(let x, let y, let w, let h, let from, let to) where frame.t >= from && frame.t <= to:
        patches.append((x, y, w, h))
      case .freeze(let from, let to) where frame.t >= from && frame.t <= to:
        freeze = true
      case .corrupt(let index) where frame.index == index:
        if case .jpeg(var bytes) = frame.payload {
          // Keep the header, garble the entropy-coded data, cut the end.
          let start = min(bytes.count, 700)
          for offset in stride(from: start, to: bytes.count, by: 7) { bytes[offset] ^= 0x5A }
          bytes.removeLast(bytes.count / 3)
          frame.payload = .jpeg(bytes)
        } else {
          frame.payload = .unreadable(reason: "corrupt frame (injected fault)")
        }
        return
      default: break
      }
    }
    if freeze, let frozen {
      frame.payload = frozen
      return
    }
    if !freeze { frozen = frame.payload }
    guard !degradations.isEmpty || !patches.isEmpty else { return }
    let image: ImageBuffer
    switch frame.payload {
    case .jpeg(let bytes):
      let decoded = ImageBuffer(format: .rgb8)
      do { try decoder.decode(bytes, into: decoded, format: .rgb8) } catch { return }
      image = decoded
    case .image(let picture): image = picture.copy()
    case .unreadable: return
    }
    for degradation in degradations { degradation.apply(to: image) }
    for (x, y, w, h) in patches {
      let x0 = max(0, Int(x * Double(image.width)))
      let y0 = max(0, Int(y * Double(image.height)))
      let x1 = min(image.width, Int((x + w) * Double(image.width)))
      let y1 = min(image.height, Int((y + h) * Double(image.height)))
      let channels = image.format.bytesPerPixel
      for row in y0..<max(y0, y1) {
        (image.pixels + (row * image.width + x0) * channels).initialize(
          repeating: 16, count: max(0, x1 - x0) * channels)
      }
    }
    frame.payload = .image(image)
  }
}

/// Applies the scenario's measurement faults to a frame.
struct MeasurementFaults {
  let faults: [(field: String, add: Double?, scale: Double?, set: JSONValue?, from: Double, to: Double)]

  init(_ faults: [Fault]) {
    var list: [(field: String, add: Double?, scale: Double?, set: JSONValue?, from: Double, to: Double)] = []
    for fault in faults {
      if case .measure(let field, let add, let scale, let set, let from, let to) = fault {
        list.append((field, add, scale, set, from, to))
      }
    }
    self.faults = list
  }

  var isEmpty: Bool { faults.isEmpty }

  func apply(_ frame: inout MeasurementFrame, schema: MeasurementSchema) {
    for fault in faults where frame.t >= fault.from && frame.t <= fault.to {
      guard case .success(let node) = schema.node(path: fault.field) else { continue }
      let current = frame[node]
      var value: Double?
      switch current {
      case .number(let number): value = number
      case .integer(let number): value = Double(number)
      default: value = nil
      }
      if let set = fault.set {
        switch set {
        case .bool(let flag): frame[node] = .bool(flag)
        case .integer(let number): frame[node] = .integer(number)
        case .number(let number): frame[node] = .number(number)
        case .string(let text): frame[node] = .string(text)
        default:
          frame[node] = .absent
          continue
        }
      } else if let value, let add = fault.add {
        frame[node] = .number(value + add)
      } else if let value, let scale = fault.scale {
        frame[node] = .number(value * scale)
      }
      for table in schema.ancestors(of: node) { frame[table] = .table }
    }
  }
}

/// The frame and time faults that make sense for a trace (no pixels):
/// dropped frames, duplicates, jitter, a frozen stretch, a swap.
final class TraceFrameFaults {
  private let faults: [Fault]
  private var random: SeededRandom
  private var lastT = -Double.infinity
  private var frozen: MeasurementFrame?
  private var held: MeasurementFrame?
  private var fired = Set<Int>()

  init(_ faults: [Fault], seed: UInt64) {
    self.faults = faults
    random = SeededRandom(state: seed)
  }

  /// Faults a trace cannot have, by name (pixels, a camera).
  static func unsupported(_ faults: [Fault]) -> [String] {
    faults.compactMap { fault in
      switch fault {
      case .pixels(let degradation, _, _): return "\(degradation)"
      case .occlude: return "occlude"
      case .corrupt: return "corrupt"
      case .unplug: return "unplug"
      case .replay: return "replay"
      default: return nil
      }
    }
  }

  func frames(for input: MeasurementFrame) -> [MeasurementFrame] {
    var frame = input
    for fault in faults {
      switch fault {
      case .dropRate(let rate): if random.nextDouble() < rate { return [] }
      case .dropFrames(let list): if list.contains(frame.index) { return [] }
      default: break
      }
    }
    var out: [MeasurementFrame] = []
    for fault in faults {
      switch fault {
      case .freeze(let from, let to) where frame.t >= from && frame.t <= to:
        // The measurements stay those of the last frame before the stretch.
        if let frozen {
          let t = frame.t
          let index = frame.index
          frame = frozen
          frame.t = t
          frame.index = index
        }
      case .jitter(let amount):
        frame.t = max(lastT + 1e-6, frame.t + (random.nextDouble() * 2 - 1) * amount)
      default: break
      }
    }
    if !faults.contains(where: {
      if case .freeze(let from, let to) = $0 { return input.t >= from && input.t <= to }; return false
    }) {
      frozen = input
    }
    if let swapped = held {
      // The earlier frame arrives after this one, each keeping its time.
      held = nil
      var first = frame
      var second = swapped
      (first.t, second.t) = (swapped.t, frame.t)
      lastT = max(lastT, second.t)
      return [first, second]
    }
    for (number, fault) in faults.enumerated() {
      switch fault {
      case .reorder(let at) where frame.t >= at && fired.insert(number).inserted:
        held = frame
        return []
      case .duplicate(let at, let count) where frame.t >= at && fired.insert(number).inserted:
        out += Array(repeating: frame, count: count)
      default: break
      }
    }
    lastT = max(lastT, frame.t)
    return [frame] + out
  }
}

/// A trace with the scenario's frame and time faults: the flow gets the
/// frames ``TraceFrameFaults`` makes of each frame read.
final class FaultyTraceInput: WrappingMeasurementInput {
  let base: any MeasurementInput
  private let faults: TraceFrameFaults
  private var pending: [MeasurementFrame] = []
  private var nextPending = 0

  init(_ base: any MeasurementInput, faults: TraceFrameFaults) {
    self.base = base
    self.faults = faults
  }

  func next(note: (InputNote) -> Void) throws(WorkbenchError) -> MeasurementFrame? {
    while nextPending >= pending.count {
      guard let frame = try base.next(note: note) else { return nil }
      pending = faults.frames(for: frame)
      nextPending = 0
    }
    defer { nextPending += 1 }
    return pending[nextPending]
  }
}

/// An input whose measurements the scenario's measurement faults change.
final class AdjustedInput: WrappingMeasurementInput {
  let base: any MeasurementInput
  private let faults: MeasurementFaults
  private let schema: MeasurementSchema

  init(_ base: any MeasurementInput, faults: MeasurementFaults, schema: MeasurementSchema) {
    self.base = base
    self.faults = faults
    self.schema = schema
  }

  func next(note: (InputNote) -> Void) throws(WorkbenchError) -> MeasurementFrame? {
    guard var frame = try base.next(note: note) else { return nil }
    faults.apply(&frame, schema: schema)
    return frame
  }
}

/// Says when the `close` fault's time has come: a frame at or after it
/// went to the flow.
final class CloseSignal {
  let at: Double
  private(set) var due = false

  init(at: Double) { self.at = at }

  func saw(_ t: Double) { if t >= at { due = true } }
}

/// The input as it is, watched for the `close` fault's time.
final class ClosingInput: WrappingMeasurementInput {
  let base: any MeasurementInput
  private let signal: CloseSignal

  init(_ base: any MeasurementInput, signal: CloseSignal) {
    self.base = base
    self.signal = signal
  }

  func next(note: (InputNote) -> Void) throws(WorkbenchError) -> MeasurementFrame? {
    let frame = try base.next(note: note)
    if let frame { signal.saw(frame.t) }
    return frame
  }
}
