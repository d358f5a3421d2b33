import JSONCore

/// What kind of value a setting holds.
public enum SettingType: Sendable, Equatable {
  case number
  case integer
  case boolean
  case string
  /// A string that must be one of the listed names.
  case choice([String])

  /// The type's name as written in `workbench settings --json`.
  public var name: String {
    switch self {
    case .number: return "number"
    case .integer: return "integer"
    case .boolean: return "boolean"
    case .string: return "string"
    case .choice: return "choice"
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
    }
  }

  var allowsRange: Bool {
    switch self {
    case .number, .integer: return true
    case .boolean, .string, .choice: return false
    }
  }
}

/// A setting's value. Choices are held as `.string`.
public enum SettingValue: Sendable, Equatable, CustomStringConvertible {
  case number(Double)
  case integer(Int64)
  case boolean(Bool)
  case string(String)

  /// Numbers in their shortest form (`30`, `0.25`), strings as they are.
  public var description: String {
    switch self {
    case .number(let number): return formatNumber(number)
    case .integer(let integer): return String(integer)
    case .boolean(let boolean): return boolean ? "true" : "false"
    case .string(let string): return string
    }
  }

  public var jsonValue: JSONValue {
    switch self {
    case .number(let number): return .number(number)
    case .integer(let integer): return .integer(integer)
    case .boolean(let boolean): return .bool(boolean)
    case .string(let string): return .string(string)
    }
  }

  var numericValue: Double? {
    switch self {
    case .number(let number): return number
    case .integer(let integer): return Double(integer)
    case .boolean, .string: return nil
    }
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
