/// A JSON value that keeps object keys in document order and integers apart
/// from fractions, so that what is read can be written back unchanged and
/// output is byte-for-byte reproducible.
public enum JSONValue: Sendable, Equatable {
  case null
  case bool(Bool)
  case integer(Int64)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object(JSONObject)

  public subscript(key: String) -> JSONValue? {
    if case .object(let object) = self { return object[key] }
    return nil
  }

  public var objectValue: JSONObject? {
    if case .object(let object) = self { return object }
    return nil
  }

  public var arrayValue: [JSONValue]? {
    if case .array(let array) = self { return array }
    return nil
  }

  public var stringValue: String? {
    if case .string(let string) = self { return string }
    return nil
  }

  public var boolValue: Bool? {
    if case .bool(let bool) = self { return bool }
    return nil
  }

  /// The value as a Double when it is any JSON number.
  public var doubleValue: Double? {
    switch self {
    case .integer(let value): return Double(value)
    case .number(let value): return value
    default: return nil
    }
  }

  /// The value as an integer when it is an integer or a fraction-free number.
  public var integerValue: Int64? {
    switch self {
    case .integer(let value): return value
    case .number(let value):
      guard value.rounded() == value, abs(value) < 9.2e18 else { return nil }
      return Int64(value)
    default: return nil
    }
  }

  /// A short name of the value's kind, for error messages.
  public var kindName: String {
    switch self {
    case .null: return "null"
    case .bool: return "boolean"
    case .integer: return "integer"
    case .number: return "number"
    case .string: return "string"
    case .array: return "array"
    case .object: return "object"
    }
  }
}

/// A JSON object whose keys keep the order in which they were read or set.
///
/// Small objects are searched in order; one with many keys (a hostile trace
/// line can have hundreds of thousands) also keeps a key index, so that
/// reading or building it stays linear rather than quadratic.
public struct JSONObject: Sendable, Equatable, Sequence {
  public private(set) var entries: [(key: String, value: JSONValue)] = []
  private var positions: [String: Int]?

  /// Up to this many keys a scan is cheaper than hashing.
  private static let indexedFrom = 16

  public init() {}

  public init(_ entries: [(String, JSONValue)]) {
    for (key, value) in entries { self[key] = value }
  }

  public var count: Int { entries.count }
  public var isEmpty: Bool { entries.isEmpty }
  public var keys: [String] { entries.map(\.key) }

  public subscript(key: String) -> JSONValue? {
    get { position(of: key).map { entries[$0].value } }
    set {
      if let index = position(of: key) {
        if let newValue {
          entries[index].value = newValue
        } else {
          entries.remove(at: index)
          positions = nil
          indexIfLarge()
        }
      } else if let newValue {
        append(key, newValue)
      }
    }
  }

  public func contains(_ key: String) -> Bool { position(of: key) != nil }

  /// Adds a key the caller knows is not there yet (a parser that has
  /// already refused duplicates), without searching for it.
  mutating func appendNew(_ key: String, _ value: JSONValue) {
    append(key, value)
  }

  private mutating func append(_ key: String, _ value: JSONValue) {
    entries.append((key, value))
    if positions != nil {
      positions?[key] = entries.count - 1
    } else {
      indexIfLarge()
    }
  }

  private mutating func indexIfLarge() {
    guard positions == nil, entries.count > Self.indexedFrom else { return }
    var index: [String: Int] = [:]
    index.reserveCapacity(entries.count * 2)
    for (position, entry) in entries.enumerated() { index[entry.key] = position }
    positions = index
  }

  private func position(of key: String) -> Int? {
    if let positions { return positions[key] }
    return entries.firstIndex(where: { $0.key == key })
  }

  public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> {
    entries.makeIterator()
  }

  public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
    lhs.entries.count == rhs.entries.count
      && zip(lhs.entries, rhs.entries).allSatisfy { $0.key == $1.key && $0.value == $1.value }
  }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
  ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral,
  ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
  public init(stringLiteral value: String) { self = .string(value) }
  public init(integerLiteral value: Int64) { self = .integer(value) }
  public init(floatLiteral value: Double) { self = .number(value) }
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    self = .object(JSONObject(elements))
  }
  public init(nilLiteral: ()) { self = .null }
}
