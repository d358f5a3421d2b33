import JSONCore

/// What the events say happened when: the run's steps as spans, its
/// statuses, hints and captures.
struct Timeline {
  struct StepSpan: Equatable {
    enum State: String { case passed, failed, open }
    var name: String
    var start: Double
    var end: Double?
    var state: State
    var reason: String?
  }

  struct Mark: Equatable {
    var t: Double
    var frame: Int64?
    var label: String
    var detail: String
  }

  struct Capture: Equatable {
    var name: String
    var t: Double?
    var frame: Int64?
    /// (kind, path) in the event's order: `frame`, `card`, `portrait`, ...
    var images: [(kind: String, path: String)]

    static func == (lhs: Capture, rhs: Capture) -> Bool {
      lhs.name == rhs.name && lhs.t == rhs.t && lhs.frame == rhs.frame
        && lhs.images.map(\.kind) == rhs.images.map(\.kind) && lhs.images.map(\.path) == rhs.images.map(\.path)
    }
  }

  var session: JSONObject?
  var result: JSONObject?
  var steps: [StepSpan] = []
  var statuses: [Mark] = []
  var hints: [JSONObject] = []
  var captures: [Capture] = []
  /// `identity` events of face comparisons (verify, identify, compare).
  var comparisons: [JSONObject] = []
  /// `status`, `intermediate`, `flow.*`, `frame_skipped` and `frames_dropped` events.
  var notes: [JSONObject] = []

  init(events: [JSONValue]) {
    for event in events {
      guard let object = event.objectValue, let type = object["type"]?.stringValue else { continue }
      let t = object["t"]?.doubleValue ?? 0
      switch type {
      case "session":
        if session == nil { session = object }
      case "result":
        result = object
      case "step":
        step(object, t: t)
      case "hint":
        hints.append(object)
      case "status":
        let name = object["status"]?.stringValue ?? "status"
        statuses.append(Mark(t: t, frame: object["frame"]?.integerValue, label: name, detail: Timeline.fields(object)))
        notes.append(object)
      case "capture":
        captures.append(Timeline.capture(object, name: object["name"]?.stringValue ?? "capture"))
      case "identity":
        if ["verify", "identify", "compare"].contains(object["operation"]?.stringValue ?? "") {
          comparisons.append(object)
        }
      default:
        if type == "intermediate" || type.hasPrefix("flow.") || type == "frame_skipped" || type == "frames_dropped" {
          notes.append(object)
        }
      }
    }
    // A run whose capture events are gone still names its captures in the result.
    if captures.isEmpty, let taken = result?["captures"]?.objectValue {
      for (name, value) in taken {
        guard let object = value.objectValue else { continue }
        captures.append(Timeline.capture(object, name: name))
      }
    }
  }

  private mutating func step(_ object: JSONObject, t: Double) {
    let name = object["name"]?.stringValue ?? "step"
    switch object["state"]?.stringValue {
    case "started":
      steps.append(StepSpan(name: name, start: t, end: nil, state: .open, reason: nil))
    case let state where state == "passed" || state == "failed":
      let span = steps.lastIndex { $0.name == name && $0.state == .open }
      let index =
        span
        ?? {
          steps.append(StepSpan(name: name, start: t, end: nil, state: .open, reason: nil))
          return steps.count - 1
        }()
      steps[index].end = t
      steps[index].state = state == "passed" ? .passed : .failed
      steps[index].reason = object["reason"]?.stringValue
    default:
      break
    }
  }

  private static func capture(_ object: JSONObject, name: String) -> Capture {
    var images: [(kind: String, path: String)] = []
    for (kind, value) in object["images"]?.objectValue ?? JSONObject() {
      if let path = value.stringValue { images.append((kind, path)) }
    }
    return Capture(name: name, t: object["t"]?.doubleValue, frame: object["frame"]?.integerValue, images: images)
  }

  /// The fields of an event after `type`, `t` and `frame`, as `key=value`.
  static func fields(_ object: JSONObject, skipping: Set<String> = ["type", "t", "frame", "status"]) -> String {
    let shown = object.filter { !skipping.contains($0.key) }
    return shown.map { "\($0.key)=\(ReportFormat.cell($0.value))" }.joined(separator: " ")
  }

  /// The earliest and latest time of the events.
  var timeRange: ClosedRange<Double>? {
    var times: [Double] = steps.flatMap { [$0.start] + ($0.end.map { [$0] } ?? []) }
    times += statuses.map(\.t)
    times += hints.compactMap { $0["t"]?.doubleValue }
    times += captures.compactMap(\.t)
    if let t = result?["t"]?.doubleValue, result?["frames"] != nil { times.append(t) }
    guard let low = times.min(), let high = times.max() else { return nil }
    return low...high
  }
}
