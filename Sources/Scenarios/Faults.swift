import Diagnostics
import Imaging
import JSONCore

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
