import JSONCore

/// One numeric measurement over the frames: a value, or nil where the frame
/// does not have it.
struct Series: Sendable, Equatable {
  var path: String
  var times: [Double]
  var values: [Double?]

  var present: [Double] { values.compactMap { $0 } }

  /// Runs of consecutive frames that have a value; a missing value ends a run.
  var segments: [[(t: Double, value: Double)]] {
    var runs: [[(t: Double, value: Double)]] = []
    var current: [(t: Double, value: Double)] = []
    for (t, value) in zip(times, values) {
      if let value {
        current.append((t, value))
      } else if !current.isEmpty {
        runs.append(current)
        current = []
      }
    }
    if !current.isEmpty { runs.append(current) }
    return runs
  }
}

/// Which measurements are plotted, in which order.
enum SeriesSelection {
  /// Measurements shown first, in this order (`*` ends a pattern that takes
  /// any rest, in the order the trace has them).
  static let priority = [
    "card.tilt_x", "card.tilt_y", "card.size_ratio", "card.width_ratio", "card.speed", "card.glare", "card.blur",
    "face.yaw", "face.pitch", "face.roll", "face.ear_left", "face.ear_right", "face.blink_left", "face.blink_right",
    "quality.*", "face.quality.*",
  ]

  /// Path components that hold geometry rather than a measurement to plot
  /// (face boxes, card corners, landmarks), and whole groups of bookkeeping.
  static let excludedComponents: Set<String> = ["box", "bbox", "corners", "quad", "landmarks", "points", "rect"]
  static let excludedGroups: Set<String> = ["image"]

  /// Every numeric leaf of the frames, by dotted path (arrays count from 1),
  /// in the order they first appear.
  static func allSeries(_ frames: [JSONValue]) -> [Series] {
    var order: [String] = []
    var columns: [String: [Double?]] = [:]
    var times: [Double] = []
    for frame in frames {
      guard let object = frame.objectValue, let t = object["t"]?.doubleValue else { continue }
      times.append(t)
      var leaves: [(String, Double)] = []
      for (key, value) in object where key != "t" && key != "frame" {
        collect(value, path: key, into: &leaves)
      }
      for (path, value) in leaves {
        if columns[path] == nil {
          order.append(path)
          columns[path] = Array(repeating: nil, count: times.count - 1)
        }
        columns[path]!.append(value)
      }
      for path in order where columns[path]!.count < times.count { columns[path]!.append(nil) }
    }
    return order.map { Series(path: $0, times: times, values: columns[$0]!) }
  }

  private static func collect(_ value: JSONValue, path: String, into leaves: inout [(String, Double)]) {
    switch value {
    case .integer, .number:
      if let number = value.doubleValue, number.isFinite { leaves.append((path, number)) }
    case .object(let object):
      for (key, child) in object { collect(child, path: path + "." + key, into: &leaves) }
    case .array(let array):
      for (position, child) in array.enumerated() { collect(child, path: path + ".\(position + 1)", into: &leaves) }
    default:
      break
    }
  }

  static func isPlottable(_ path: String) -> Bool {
    let components = path.split(separator: ".").map(String.init)
    guard let group = components.first, !excludedGroups.contains(group) else { return false }
    return !components.contains(where: excludedComponents.contains)
  }

  /// The rank of `path` in `priority`, or nil.
  static func rank(_ path: String) -> Int? {
    priority.firstIndex { pattern in
      pattern.hasSuffix("*") ? path.hasPrefix(pattern.dropLast()) : path == pattern
    }
  }

  /// The series to plot: the priority list first, then those with a
  /// threshold, then the rest in trace order; at most `limit`.
  static func select(_ series: [Series], thresholdPaths: Set<String>, limit: Int) -> [Series] {
    let candidates = series.enumerated().filter { isPlottable($0.element.path) && !$0.element.present.isEmpty }
    let sorted = candidates.sorted { a, b in
      let key = { (item: (offset: Int, element: Series)) -> (Int, Int, Int) in
        if let rank = rank(item.element.path) { return (0, rank, item.offset) }
        if thresholdPaths.contains(item.element.path) { return (1, 0, item.offset) }
        return (2, 0, item.offset)
      }
      return key(a) < key(b)
    }
    return sorted.prefix(max(0, limit)).map(\.element)
  }
}
