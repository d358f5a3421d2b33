/// One tunable value of a run: its key, type, allowed values, default and doc.
public struct SettingDeclaration: Sendable, Equatable {
  /// Dotted lower-case words, such as `flow.time_limit`.
  public var key: String
  public var type: SettingType
  public var defaultValue: SettingValue
  /// Inclusive lower bound, for number and integer settings only.
  public var minimum: Double?
  /// Inclusive upper bound, for number and integer settings only.
  public var maximum: Double?
  /// One line saying what the setting does.
  public var doc: String
  /// Shown after values in tables and errors, such as "s" or "MiB".
  public var unit: String?

  public init(
    key: String, type: SettingType, defaultValue: SettingValue,
    minimum: Double? = nil, maximum: Double? = nil, doc: String, unit: String? = nil
  ) {
    self.key = key
    self.type = type
    self.defaultValue = defaultValue
    self.minimum = minimum
    self.maximum = maximum
    self.doc = doc
    self.unit = unit
  }

  public static func number(
    _ key: String, default defaultValue: Double, minimum: Double? = nil, maximum: Double? = nil,
    unit: String? = nil, doc: String
  ) -> SettingDeclaration {
    SettingDeclaration(
      key: key, type: .number, defaultValue: .number(defaultValue),
      minimum: minimum, maximum: maximum, doc: doc, unit: unit)
  }

  public static func integer(
    _ key: String, default defaultValue: Int64, minimum: Int64? = nil, maximum: Int64? = nil,
    unit: String? = nil, doc: String
  ) -> SettingDeclaration {
    SettingDeclaration(
      key: key, type: .integer, defaultValue: .integer(defaultValue),
      minimum: minimum.map(Double.init), maximum: maximum.map(Double.init), doc: doc, unit: unit)
  }

  public static func boolean(_ key: String, default defaultValue: Bool, doc: String) -> SettingDeclaration {
    SettingDeclaration(key: key, type: .boolean, defaultValue: .boolean(defaultValue), doc: doc)
  }

  public static func string(_ key: String, default defaultValue: String, doc: String) -> SettingDeclaration {
    SettingDeclaration(key: key, type: .string, defaultValue: .string(defaultValue), doc: doc)
  }

  public static func choice(
    _ key: String, _ choices: [String], default defaultValue: String, doc: String
  ) -> SettingDeclaration {
    SettingDeclaration(key: key, type: .choice(choices), defaultValue: .string(defaultValue), doc: doc)
  }

  /// A number or a list of numbers (`80`, `[128, 128]`), each in the range.
  public static func numbers(
    _ key: String, default defaultValue: [Double], lengths: ClosedRange<Int>, minimum: Double? = nil,
    maximum: Double? = nil, unit: String? = nil, doc: String
  ) -> SettingDeclaration {
    SettingDeclaration(
      key: key, type: .numbers(lengths: lengths), defaultValue: .numbers(defaultValue), minimum: minimum,
      maximum: maximum, doc: doc, unit: unit)
  }

  /// A string or a list of strings.
  public static func strings(_ key: String, default defaultValue: [String], doc: String) -> SettingDeclaration {
    SettingDeclaration(key: key, type: .strings, defaultValue: .strings(defaultValue), doc: doc)
  }

  /// Whether `key` has the form `^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$`.
  public static func isValidKey(_ key: String) -> Bool {
    let segments = key.split(separator: ".", omittingEmptySubsequences: false)
    guard let first = segments.first?.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first)
    else { return false }
    return segments.allSatisfy { segment in
      !segment.isEmpty
        && segment.utf8.allSatisfy { byte in
          (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }
    }
  }

  /// The allowed range as errors and tables show it: "0 ... 300 s",
  /// "0 s or more", "up to 300 s"; nil when unbounded.
  public var rangeDescription: String? {
    switch (minimum, maximum) {
    case (let minimum?, let maximum?): return "\(formatNumber(minimum)) ... \(withUnit(formatNumber(maximum)))"
    case (let minimum?, nil): return "\(withUnit(formatNumber(minimum))) or more"
    case (nil, let maximum?): return "up to \(withUnit(formatNumber(maximum)))"
    case (nil, nil): return nil
    }
  }

  /// `text` followed by the unit, if the setting has one.
  func withUnit(_ text: String) -> String {
    guard let unit, !unit.isEmpty else { return text }
    return "\(text) \(unit)"
  }

  /// "a number (seconds)", "an integer (MiB)", "one of 'a', 'b'".
  var expectation: String {
    guard let unit, !unit.isEmpty, type.allowsRange else { return type.expectation }
    return "\(type.expectation) (\(spelledOutUnit(unit)))"
  }

  func isInRange(_ number: Double) -> Bool {
    if let minimum, number < minimum { return false }
    if let maximum, number > maximum { return false }
    return true
  }

  /// Everything wrong with this declaration, as sentences naming the key.
  /// An integer default given for a number setting is accepted.
  func problems() -> [String] {
    var problems: [String] = []
    guard SettingDeclaration.isValidKey(key) else {
      return [
        "setting key '\(key)' is not valid: use lower-case words of a-z, 0-9 and '_' "
          + "joined by dots, such as 'flow.time_limit'"
      ]
    }
    if doc.isEmpty || doc.contains(where: \.isNewline) {
      problems.append("setting '\(key)' needs a doc of exactly one line")
    }
    if !type.allowsRange, minimum != nil || maximum != nil {
      problems.append("setting '\(key)' is \(type.expectation); only numbers and integers have a range")
    }
    if let minimum, !minimum.isFinite { problems.append("setting '\(key)' has a minimum that is not finite") }
    if let maximum, !maximum.isFinite { problems.append("setting '\(key)' has a maximum that is not finite") }
    if let minimum, let maximum, minimum > maximum {
      problems.append(
        "setting '\(key)' has a minimum \(formatNumber(minimum)) above its maximum \(formatNumber(maximum))")
    }
    if case .choice(let choices) = type {
      if choices.isEmpty { problems.append("setting '\(key)' is a choice with no choices") }
      if Set(choices).count != choices.count { problems.append("setting '\(key)' lists a choice twice") }
    }
    switch (type, defaultValue) {
    case (.number, .number(let number)) where !number.isFinite:
      problems.append("setting '\(key)' has a default that is not finite")
    case (.number, .number), (.number, .integer), (.integer, .integer), (.boolean, .boolean), (.string, .string),
      (.strings, .strings):
      break
    case (.numbers(let lengths), .numbers(let numbers)):
      if !lengths.contains(numbers.count) || numbers.contains(where: { !$0.isFinite }) {
        problems.append("setting '\(key)' must have \(type.expectation) as default, got \(defaultValue.quoted)")
      }
    case (.choice(let choices), .string(let choice)):
      if !choices.isEmpty, !choices.contains(choice) {
        problems.append("setting '\(key)' has default \(quote(choice)), which is not \(type.expectation)")
      }
    default:
      problems.append("setting '\(key)' must have \(type.expectation) as default, got \(defaultValue.quoted)")
    }
    if defaultValue.rangedNumbers.contains(where: { $0.isFinite && !isInRange($0) }), type.allowsRange,
      let range = rangeDescription
    {
      problems.append("setting '\(key)' has default \(defaultValue) outside its range \(range)")
    }
    return problems
  }

  /// Numbers are held as `.number` even when declared with an integer default,
  /// so that readers only ever see one case per type.
  func normalized() -> SettingDeclaration {
    var declaration = self
    if type == .number, case .integer(let integer) = defaultValue {
      declaration.defaultValue = .number(Double(integer))
    }
    return declaration
  }

  /// The names of the parts in which `other` differs from this declaration.
  func differences(from other: SettingDeclaration) -> [String] {
    var names: [String] = []
    if type != other.type { names.append("type") }
    if defaultValue != other.defaultValue { names.append("default") }
    if minimum != other.minimum || maximum != other.maximum { names.append("range") }
    if unit != other.unit { names.append("unit") }
    if doc != other.doc { names.append("doc") }
    return names
  }
}

/// Units as words where a message reads better with them: "a number (seconds)".
private func spelledOutUnit(_ unit: String) -> String {
  switch unit {
  case "s": return "seconds"
  case "ms": return "milliseconds"
  case "min": return "minutes"
  case "px": return "pixels"
  case "%": return "percent"
  case "fps": return "frames per second"
  case "Hz": return "hertz"
  default: return unit
  }
}
