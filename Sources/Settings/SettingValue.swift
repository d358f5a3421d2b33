import JSONCore

/// What kind of value a setting holds.
public enum SettingType: Sendable, Equatable {
  case number
  case integer
  case boolean
  case string
  /// A string that must be one of the listed names.
  case choice([String])
  /// A number, or a list of numbers whose length is in `lengths` (one
  /// number stands for a list of one).
  case numbers(lengths: ClosedRange<Int>)
  /// A string, or a list of at least one string.
  case strings

  /// The type's name as written in `workbench settings --json`.
  public var name: String {
    switch self {
    case .number: return "number"
    case .integer: return "integer"
    case .boolean: return "boolean"
    case .string: return "string"
    case .choice: return "choice"
    case .numbers: return "numbers"
    case .strings: return "strings"
    }
  }

  /// How an error message says what is expected: "a number", "one of 'a', 'b'".
  var expectation: String {
    switch self {
    case .number: return "a number"
    case .integer: return "an integer"
    case .boolean: return "a boolean"
    case .string: return "a string"
    case .choice(let choices): return "one of " + choices.map { "'\($0)'" }.joined(separator: ", ")
    case .numbers(let lengths):
      let count =
        lengths.lowerBound == lengths.upperBound
        ? "\(lengths.lowerBound)"
        : lengths.upperBound == Int.max ? "any number of" : "\(lengths.lowerBound) to \(lengths.upperBound)"
      return lengths.contains(1) ? "a number or a list of \(count) numbers" : "a list of \(count) numbers"
    case .strings: return "a string or a list of strings"
    }
  }

  var allowsRange: Bool {
    switch self {
    case .number, .integer, .numbers: return true
    case .boolean, .string, .choice, .strings: return false
    }
  }
}

/// A setting's value. Choices are held as `.string`.
public enum SettingValue: Sendable, Equatable, CustomStringConvertible {
  case number(Double)
  case integer(Int64)
  case boolean(Bool)
  case string(String)
  /// A `numbers` setting's list (a single number is a list of one).
  case numbers([Double])
  /// A `strings` setting's list (a single string is a list of one).
  case strings([String])

  /// Numbers in their shortest form (`30`, `0.25`), strings as they are.
  public var description: String {
    switch self {
    case .number(let number): return formatNumber(number)
    case .integer(let integer): return String(integer)
    case .boolean(let boolean): return boolean ? "true" : "false"
    case .string(let string): return string
    case .numbers(let numbers):
      return numbers.count == 1
        ? formatNumber(numbers[0]) : "[" + numbers.map(formatNumber).joined(separator: ", ") + "]"
    case .strings(let strings):
      return strings.count == 1 ? strings[0] : "[" + strings.map(quote).joined(separator: ", ") + "]"
    }
  }

  public var jsonValue: JSONValue {
    switch self {
    case .number(let number): return .number(number)
    case .integer(let integer): return .integer(integer)
    case .boolean(let boolean): return .bool(boolean)
    case .string(let string): return .string(string)
    case .numbers(let numbers): return numbers.count == 1 ? .number(numbers[0]) : .array(numbers.map(JSONValue.number))
    case .strings(let strings): return strings.count == 1 ? .string(strings[0]) : .array(strings.map(JSONValue.string))
    }
  }

  var numericValue: Double? {
    switch self {
    case .number(let number): return number
    case .integer(let integer): return Double(integer)
    case .boolean, .string, .numbers, .strings: return nil
    }
  }

  /// The numbers to hold against a range: each of a list's.
  var rangedNumbers: [Double] {
    if case .numbers(let numbers) = self { return numbers }
    return numericValue.map { [$0] } ?? []
  }

  /// The value as a problem message quotes it: strings in quotes so that an
  /// empty or blank string is still visible.
  var quoted: String {
    if case .string(let string) = self { return quote(string) }
    return description
  }
}

/// The shortest text for a number: whole numbers without a fraction.
func formatNumber(_ number: Double) -> String {
  if number.isFinite, number.rounded() == number, abs(number) < 1e15 {
    return String(Int64(number))
  }
  return number.description
}

func quote(_ text: String) -> String {
  JSONValue.string(text).jsonText
}
