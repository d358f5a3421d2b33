import Diagnostics
import JSONCore

/// A value as it was given, before it is checked against its declaration.
enum AssignedInput: Sendable {
  /// A typed value from a JSON file or the Lua flow.
  case json(JSONValue)
  /// Text from `--set`, read according to the declared type.
  case text(String)
}

/// Why a given value cannot be used; the caller adds where it came from.
struct ValueProblem: Error {
  var message: String
  var help: String
}

extension SettingDeclaration {
  /// The value `input` gives this setting, or why it gives none.
  func value(from input: AssignedInput) throws(ValueProblem) -> SettingValue {
    let value = try typedValue(from: input)
    if let number = value.rangedNumbers.first(where: { !isInRange($0) }), let range = rangeDescription {
      throw ValueProblem(
        message: "setting '\(key)' = \(value) is out of range: allowed \(range)",
        help: "use a value in \(range) (the default is \(withUnit(defaultValue.description)))")
    }
    return value
  }

  private func typedValue(from input: AssignedInput) throws(ValueProblem) -> SettingValue {
    switch input {
    case .json(let json):
      if let value = value(fromJSON: json) { return value }
      throw wrongType(got: describe(json), help: help(forJSON: json))
    case .text(let text):
      if let value = value(fromText: text) { return value }
      throw wrongType(got: "string \(quote(text))", help: help(forText: text))
    }
  }

  private func value(fromJSON json: JSONValue) -> SettingValue? {
    switch type {
    case .number: return json.doubleValue.map(SettingValue.number)
    case .integer: return json.integerValue.map(SettingValue.integer)
    case .boolean: return json.boolValue.map(SettingValue.boolean)
    case .string: return json.stringValue.map(SettingValue.string)
    case .choice(let choices):
      guard let name = json.stringValue, choices.contains(name) else { return nil }
      return .string(name)
    case .numbers(let lengths):
      let numbers = json.arrayValue.map { $0.compactMap(\.doubleValue) } ?? json.doubleValue.map { [$0] }
      guard let numbers, numbers.count == (json.arrayValue?.count ?? 1), lengths.contains(numbers.count) else {
        return nil
      }
      return .numbers(numbers)
    case .strings:
      let strings = json.arrayValue.map { $0.compactMap(\.stringValue) } ?? json.stringValue.map { [$0] }
      guard let strings, strings.count == (json.arrayValue?.count ?? 1) else { return nil }
      return .strings(strings)
    }
  }

  private func value(fromText text: String) -> SettingValue? {
    let trimmed = text.trimmingWhitespace()
    switch type {
    case .number: return parseDecimal(trimmed).map(SettingValue.number)
    case .integer:
      if let integer = Int64(trimmed) { return .integer(integer) }
      return parseDecimal(trimmed).flatMap { JSONValue.number($0).integerValue }.map(SettingValue.integer)
    case .boolean: return parseBooleanWord(trimmed).map(SettingValue.boolean)
    case .string: return .string(text)
    case .choice(let choices): return choices.contains(trimmed) ? .string(trimmed) : nil
    case .numbers:
      // `80` or `[128, 128]`, as JSON writes them.
      if let number = parseDecimal(trimmed) { return value(fromJSON: .number(number)) }
      return (try? JSONParser.parse(bytes: Array(trimmed.utf8))).flatMap { value(fromJSON: $0) }
    case .strings:
      // A JSON list of strings, else the text itself (a path).
      if trimmed.hasPrefix("["), let list = try? JSONParser.parse(bytes: Array(trimmed.utf8)) {
        return value(fromJSON: list)
      }
      return .strings([text])
    }
  }

  private func wrongType(got: String, help: String) -> ValueProblem {
    ValueProblem(message: "setting '\(key)' must be \(expectation), got \(got)", help: help)
  }

  private func help(forJSON json: JSONValue) -> String {
    if case .string(let text) = json, type != .string, value(fromText: text) != nil {
      switch type {
      case .choice: break
      case .boolean: return "write true or false without quotes"
      default: return "write the number without quotes: \(text.trimmingWhitespace())"
      }
    }
    if type == .boolean { return "use true or false" }
    return help(forText: json.stringValue)
  }

  private func help(forText text: String?) -> String {
    switch type {
    case .number: return "give a number, such as the default \(defaultValue)"
    case .integer: return "give a whole number, such as the default \(defaultValue)"
    case .boolean: return "use true or false (yes/no, on/off and 1/0 work too)"
    case .string: return "put the value in double quotes"
    case .numbers(let lengths):
      return lengths.contains(1)
        ? "give a number, or a list such as [\(Array(repeating: "1", count: max(2, lengths.lowerBound)).joined(separator: ", "))]"
        : "give a list such as [\(Array(repeating: "1", count: lengths.lowerBound).joined(separator: ", "))]"
    case .strings: return "give a string, or a list of strings such as [\"a\", \"b\"]"
    case .choice(let choices):
      let list = "use one of: " + choices.joined(separator: ", ")
      guard let text, let closest = closestNames(to: text, among: choices, limit: 1).first else { return list }
      return "did you mean '\(closest)'? \(list)"
    }
  }
}

/// A short rendering of a JSON value for messages: `string "abc"`, `boolean true`.
private func describe(_ json: JSONValue) -> String {
  if case .null = json { return "null" }
  let text = json.jsonText
  let shortened = text.count > 40 ? String(text.prefix(37)) + "..." : text
  return "\(json.kindName) \(shortened)"
}

/// A finite decimal number; hex floats, "nan" and "inf" are not numbers to a user.
private func parseDecimal(_ text: String) -> Double? {
  let allowed = Set("0123456789+-.eE")
  guard !text.isEmpty, text.allSatisfy(allowed.contains), let number = Double(text), number.isFinite
  else { return nil }
  return number
}

private func parseBooleanWord(_ text: String) -> Bool? {
  switch text.lowercased() {
  case "true", "yes", "on", "1": return true
  case "false", "no", "off", "0": return false
  default: return nil
  }
}

extension String {
  func trimmingWhitespace() -> String {
    let characters = Substring(self).drop(while: \.isWhitespace)
    return String(characters.reversed().drop(while: \.isWhitespace).reversed())
  }
}
