import JSONCore

/// Text and number formatting that gives the same bytes on every machine:
/// no locale, no platform formatter. Public for the other pages that look
/// like this one (EvaluationReport).
public enum ReportFormat {
  /// `value` with exactly `decimals` digits after the point ("-0" is "0").
  public static func fixed(_ value: Double, _ decimals: Int) -> String {
    guard value.isFinite else { return "–" }
    let decimals = max(0, min(decimals, 9))
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (value * scale).rounded()
    guard abs(scaled) < 9e15 else { return shortest(value) }
    let magnitude = Int64(abs(scaled))
    var digits = String(magnitude)
    if decimals > 0 {
      if digits.count <= decimals { digits = String(repeating: "0", count: decimals - digits.count + 1) + digits }
      digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -decimals))
    }
    return (scaled < 0 ? "-" : "") + digits
  }

  /// An SVG coordinate: one decimal.
  public static func coordinate(_ value: Double) -> String { fixed(value, 1) }

  /// A number as JSON writes it: the shortest form that reads back the same.
  public static func shortest(_ value: Double) -> String { JSONValue.number(value).jsonText }

  /// Seconds with three decimals, as the tables show times.
  static func seconds(_ t: Double) -> String { fixed(t, 3) }

  /// A JSON value as a cell shows it: strings bare, the rest as compact JSON.
  public static func cell(_ value: JSONValue) -> String {
    if case .string(let string) = value { return string }
    return value.jsonText
  }

  /// Escapes text for HTML content and attribute values.
  public static func escape(_ text: String) -> String {
    var escaped = ""
    escaped.reserveCapacity(text.utf8.count)
    for character in text {
      switch character {
      case "&": escaped += "&amp;"
      case "<": escaped += "&lt;"
      case ">": escaped += "&gt;"
      case "\"": escaped += "&quot;"
      case "'": escaped += "&#39;"
      default: escaped.append(character)
      }
    }
    return escaped
  }

  /// About how wide `text` is at `fontSize` px, to keep labels apart.
  static func estimatedWidth(_ text: String, fontSize: Double) -> Double {
    Double(text.count) * fontSize * 0.6
  }
}

/// Ticks at round numbers (1, 2 or 5 times a power of ten) over a range.
public struct NiceScale: Equatable, Sendable {
  public var lower: Double
  public var upper: Double
  public var step: Double
  /// How many decimals its ticks need.
  public var decimals: Int

  /// A range that holds `low...high`, widened to whole steps; `count` is
  /// about how many steps it has.
  public init(low: Double, high: Double, count: Int = 5) {
    var low = low
    var high = high
    if !(high - low > 1e-12) {
      let pad = abs(low) > 1e-9 ? abs(low) * 0.1 : 1
      low -= pad
      high += pad
    }
    step = NiceScale.niceStep((high - low) / Double(max(1, count)))
    lower = (low / step).rounded(.down) * step
    upper = (high / step).rounded(.up) * step
    decimals = NiceScale.decimals(step)
  }

  static func niceStep(_ raw: Double) -> Double {
    guard raw > 0, raw.isFinite else { return 1 }
    var magnitude = 1.0
    while magnitude * 10 <= raw { magnitude *= 10 }
    while magnitude > raw { magnitude /= 10 }
    let normalized = raw / magnitude
    let factor: Double = normalized <= 1 ? 1 : normalized <= 2 ? 2 : normalized <= 5 ? 5 : 10
    return factor * magnitude
  }

  static func decimals(_ step: Double) -> Int {
    var decimals = 0
    var scaled = step
    while decimals < 6 && abs(scaled - scaled.rounded()) > 1e-9 * max(1, abs(scaled)) {
      scaled *= 10
      decimals += 1
    }
    return decimals
  }

  /// The tick values from `lower` to `upper`.
  public var ticks: [Double] {
    let count = Int(((upper - lower) / step).rounded())
    return (0...max(0, count)).map { lower + Double($0) * step }
  }

  /// Ticks at multiples of `step` inside `from...to`.
  static func ticks(from: Double, to: Double, step: Double) -> [Double] {
    guard step > 0 else { return [] }
    var ticks: [Double] = []
    var index = (from / step - 1e-9).rounded(.up)
    while index * step <= to + step * 1e-9 && ticks.count < 200 {
      ticks.append(index * step)
      index += 1
    }
    return ticks
  }
}
