import Capture
import Diagnostics
import Measurements
import Session

/// Where a session's score comes from.
enum SessionScore: Equatable {
  /// A measurement aggregated over the frames the flow processed (--score).
  case measurement(ScoreSpec)
  /// The flow's own `score` function (wb.flow), in the result event.
  case flow
}

/// How a session's score is made from a measurement: `FIELD[:min|max|mean|last]`,
/// higher meaning more likely bona fide; `-FIELD` turns a field where
/// higher means an attack around.
public struct ScoreSpec: Sendable, Equatable, CustomStringConvertible {
  public enum Aggregate: String, Sendable, CaseIterable {
    case min, max, mean, last
  }

  public var field: String
  public var aggregate: Aggregate
  public var negated: Bool

  public init(_ text: String) throws(WorkbenchError) {
    var rest = Substring(text)
    negated = rest.hasPrefix("-")
    if negated { rest = rest.dropFirst() }
    let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
    guard (1...2).contains(parts.count), !parts[0].isEmpty,
      let aggregate = parts.count == 2 ? Aggregate(rawValue: String(parts[1])) : .mean
    else {
      throw WorkbenchError(
        .usage, "--score \(text): write FIELD[:min|max|mean|last], or -FIELD to reverse it",
        help: "for example --score face.blink_left:max")
    }
    field = String(parts[0])
    self.aggregate = aggregate
  }

  public var description: String { (negated ? "-" : "") + field + ":" + aggregate.rawValue }
}

/// Aggregates the score's field over the frames the flow processed.
final class ScoreOutput: RunOutput {
  private let spec: ScoreSpec
  private let node: Int?
  private var count = 0
  private var total = 0.0
  private var aggregate: Double?

  init(_ spec: ScoreSpec, schema: MeasurementSchema) {
    self.spec = spec
    node = try? schema.node(path: spec.field).get()
  }

  func frameProcessed(_ measurements: MeasurementFrame, captured: CapturedFrame?) {
    guard let node else { return }
    let value: Double
    switch measurements[node] {
    case .number(let number): value = number
    case .integer(let integer): value = Double(integer)
    case .bool(let flag): value = flag ? 1 : 0
    default: return
    }
    guard value.isFinite else { return }
    count += 1
    total += value
    switch spec.aggregate {
    case .min: aggregate = Swift.min(aggregate ?? value, value)
    case .max: aggregate = Swift.max(aggregate ?? value, value)
    case .mean: aggregate = total / Double(count)
    case .last: aggregate = value
    }
  }

  func finish(_ run: FinishedRun) throws(WorkbenchError) {}

  /// The session's score; nil when no frame had the field.
  var score: Double? { aggregate.map { spec.negated ? -$0 : $0 } }
}
