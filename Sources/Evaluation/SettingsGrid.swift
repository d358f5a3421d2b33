import Diagnostics
import JSONCore

/// The settings points an evaluation runs: the grid of every `--sweep`,
/// each point a list of settings applied over the fixed `--set` values.
public struct SettingsGrid: Sendable, Equatable {
  public struct Axis: Sendable, Equatable {
    public var key: String
    public var values: [JSONValue]
  }

  public var axes: [Axis]

  public init(axes: [Axis] = []) { self.axes = axes }

  /// `KEY=V1,V2,...` or `KEY=FROM:TO:STEP` (numbers; TO included).
  public static func axis(_ text: String) throws(WorkbenchError) -> Axis {
    let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
    guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
      throw WorkbenchError(
        .usage, "--sweep \(text): write KEY=V1,V2,... or KEY=FROM:TO:STEP",
        help: "for example --sweep liveness.blink_threshold=0.2:0.4:0.05")
    }
    let key = parts[0]
    let range = parts[1].split(separator: ":", omittingEmptySubsequences: false).map(String.init)
    if range.count == 3 {
      guard let from = Double(range[0]), let to = Double(range[1]), let step = Double(range[2]), step > 0, to >= from,
        from.isFinite, to.isFinite
      else {
        throw WorkbenchError(
          .usage, "--sweep \(text): FROM:TO:STEP needs numbers with FROM ≤ TO and a STEP above 0",
          help: "for example \(key)=0.2:0.4:0.05")
      }
      let count = Int(((to - from) / step + 1e-9).rounded(.down)) + 1
      guard count <= 10_000 else {
        throw WorkbenchError(.usage, "--sweep \(text) makes \(count) values; at most 10000 per key")
      }
      let integral = [range[0], range[1], range[2]].allSatisfy { Int64($0) != nil }
      let values: [JSONValue] = (0..<count).map { index in
        let value = from + Double(index) * step
        return integral ? .integer(Int64(value.rounded())) : .number((value * 1e9).rounded() / 1e9)
      }
      return Axis(key: key, values: values)
    }
    let values = parts[1].split(separator: ",", omittingEmptySubsequences: false).map { SettingText.value(String($0)) }
    if values.contains(.string("")) {
      throw WorkbenchError(.usage, "--sweep \(text) has an empty value", help: "separate values with single commas")
    }
    return Axis(key: key, values: values)
  }

  /// Every point, the first axis varying slowest.
  public var points: [[(key: String, value: JSONValue)]] {
    var points: [[(key: String, value: JSONValue)]] = [[]]
    for axis in axes {
      points = points.flatMap { point in axis.values.map { point + [(axis.key, $0)] } }
    }
    return points
  }
}

/// Settings as `--set` writes them and as records show them.
enum SettingText {
  /// A value typed by its text: a whole number, a number, a boolean, or a string.
  static func value(_ text: String) -> JSONValue {
    if let integer = Int64(text) { return .integer(integer) }
    if let number = Double(text), number.isFinite { return .number(number) }
    if text == "true" || text == "false" { return .bool(text == "true") }
    return .string(text)
  }

  /// The `key=value` text a flow's settings take.
  static func assignment(_ key: String, _ value: JSONValue) -> String {
    switch value {
    case .string(let text): return "\(key)=\(text)"
    case .integer(let integer): return "\(key)=\(integer)"
    case .number(let number): return "\(key)=\(JSONValue.number(number).jsonText)"
    case .bool(let flag): return "\(key)=\(flag)"
    default: return "\(key)=\(value.jsonText)"
    }
  }
}
