import Capture
import Diagnostics
import Foundation
import JSONCore
import Measurements

/// What `workbench probe` says of a measurement trace: its header, its
/// frames and their times, the measurements it carries and, with the
/// estimators' declarations, which estimators would have made them.
public struct TraceProbe: Sendable {
  public var path: String
  /// The header line's `workbench_trace`, when it has one.
  public var version: Int64?
  /// The header's other fields (its source, schedule, rate...).
  public var header = JSONObject()
  public var frames = 0
  public var firstTime: Double?
  public var lastTime: Double?
  public var rate: FrameRateSummary?
  /// Every measurement a frame holds, arrays' positions as `#`, with the type of its first value.
  public var fields: [MeasurementField] = []
  /// Estimator name → the fields it declares among `fields`; set by ``attribute(_:)``.
  public var estimators: [(name: String, fields: [String])] = []
  /// Fields no estimator declares (a plugin's, or written by hand).
  public var unclaimed: [String] = []
  /// Why reading stopped before the end; nil when the whole trace was read.
  public var problem: WorkbenchError?

  public var readable: Bool { problem == nil }

  public static func probe(path: String) -> TraceProbe {
    var probe = TraceProbe(path: path)
    let schema = MeasurementSchema()
    var times: [Double] = []
    var types: [Int: MeasurementType] = [:]
    do {
      var reader = try TraceReader(path: path, schema: schema)
      while let frame = try reader.next() {
        times.append(frame.t)
        for (node, value) in frame.values.enumerated() where types[node] == nil {
          if let type = MeasurementType(value) { types[node] = type }
        }
      }
      if let header = reader.header {
        probe.version = header["workbench_trace"]?.integerValue
        probe.header = JSONObject(header.entries.filter { $0.key != "workbench_trace" }.map { ($0.key, $0.value) })
      }
    } catch {
      probe.problem = error
    }
    probe.frames = times.count
    probe.firstTime = times.first
    probe.lastTime = times.last
    probe.rate = FrameRateSummary.measure(times)
    var seen = Set<String>()
    for (node, entry) in schema.nodes.enumerated() where !entry.isTable {
      let general = entry.path.split(separator: ".").map { Int($0) == nil ? String($0) : "#" }.joined(separator: ".")
      if seen.insert(general).inserted { probe.fields.append(MeasurementField(general, types[node] ?? .number)) }
    }
    return probe
  }

  /// Names the estimators that declare the trace's fields, from each
  /// estimator's name and declared fields.
  public mutating func attribute(_ declared: [(name: String, fields: [MeasurementField])]) {
    var claimed = Set<String>()
    estimators = []
    for (name, declaredFields) in declared {
      let catalog = MeasurementCatalog(declaredFields)
      let mine = fields.map(\.path).filter { path in
        // A position stands for any: the first one is looked up (estimators declare
        // `card.corners.1.x`, or `face.faces.#.yaw`).
        let first = path.split(separator: ".").map { $0 == "#" ? "1" : $0 }.joined(separator: ".")
        return !MeasurementCatalog.frameFields.contains { $0.path == path } && catalog.lookup(first) != .unknown
      }
      guard !mine.isEmpty else { continue }
      estimators.append((name, mine))
      claimed.formUnion(mine)
    }
    unclaimed = fields.map(\.path).filter { !claimed.contains($0) }
  }

  /// The probe as a person reads it.
  public var text: String {
    var lines = ["\(path): measurement trace, " + (readable ? "readable" : "not readable")]
    func add(_ label: String, _ value: String) {
      lines.append("  " + label.padding(toLength: 10, withPad: " ", startingAt: 0) + "  " + value)
    }
    add("format", version.map { "workbench trace version \($0)" } ?? "no header line (a trace written by hand?)")
    for (key, value) in header.entries {
      add(key, value.stringValue ?? value.jsonText)
    }
    add("frames", "\(frames)")
    if let firstTime, let lastTime {
      add(
        "duration", String(format: "%.3f s (frames from %.3f s to %.3f s)", lastTime - firstTime, firstTime, lastTime))
    }
    if let rate {
      add(
        "rate",
        (rate.isConstant ? "constant" : "variable")
          + String(
            format: ", %.3f fps measured (intervals %.1f–%.1f ms, median %.1f ms)", rate.measuredRate,
            rate.shortestInterval * 1000, rate.longestInterval * 1000, rate.medianInterval * 1000))
    }
    add("fields", fields.isEmpty ? "none" : "\(fields.count): " + fields.map(\.path).joined(separator: ", "))
    for estimator in estimators {
      add("made by", "\(estimator.name): " + estimator.fields.joined(separator: ", "))
    }
    if !unclaimed.isEmpty { add("unknown", "no estimator declares " + unclaimed.joined(separator: ", ")) }
    if let problem {
      let diagnostic = problem.diagnostics.first
      lines.append(
        "  problem     " + (diagnostic?.location.map { "\($0): " } ?? "") + (diagnostic?.message ?? problem.summary))
      if let help = diagnostic?.help { lines.append("  help        \(help)") }
    }
    return lines.joined(separator: "\n")
  }

  /// The probe as JSON (`workbench probe --json`).
  public var jsonText: String {
    var object = JSONObject()
    object["path"] = .string(path)
    object["kind"] = .string("trace")
    object["readable"] = .bool(readable)
    object["version"] = version.map(JSONValue.integer) ?? .null
    object["header"] = .object(header)
    object["frames"] = .integer(Int64(frames))
    if let firstTime, let lastTime {
      object["first_time"] = .number(firstTime)
      object["last_time"] = .number(lastTime)
      object["duration"] = .number((lastTime - firstTime).roundedToMicroseconds)
    }
    if let rate {
      object["rate"] = .object(
        JSONObject([
          ("constant", .bool(rate.isConstant)), ("measured_fps", .number(rate.measuredRate.roundedToMicroseconds)),
          ("median_interval", .number(rate.medianInterval.roundedToMicroseconds)),
        ]))
    }
    object["fields"] = .array(
      fields.map { .object(JSONObject([("path", .string($0.path)), ("type", .string($0.type.rawValue))])) })
    object["estimators"] = .array(
      estimators.map {
        .object(JSONObject([("name", .string($0.name)), ("fields", .array($0.fields.map { .string($0) }))]))
      })
    object["unknown_fields"] = .array(unclaimed.map { .string($0) })
    if let problem {
      let diagnostic = problem.diagnostics.first
      object["problem"] = .string(diagnostic?.message ?? problem.summary)
      object["line"] = diagnostic?.location?.line.map { .integer(Int64($0)) } ?? .null
    }
    return JSONValue.object(object).jsonText
  }
}
