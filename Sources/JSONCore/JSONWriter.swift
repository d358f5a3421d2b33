/// Appends compact JSON to a byte buffer. Numbers are written in their
/// shortest round-trip form, so the same values always give the same bytes.
public struct JSONWriter: Sendable {
  public private(set) var bytes: [UInt8] = []

  public init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

  public mutating func reset() { bytes.removeAll(keepingCapacity: true) }

  public var string: String { String(decoding: bytes, as: UTF8.self) }

  public mutating func raw(_ text: StaticString) {
    bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  public mutating func raw(_ byte: UInt8) { bytes.append(byte) }

  public mutating func string(_ value: String) {
    bytes.append(UInt8(ascii: "\""))
    for byte in value.utf8 {
      switch byte {
      case UInt8(ascii: "\""): raw("\\\"")
      case UInt8(ascii: "\\"): raw("\\\\")
      case 0x0A: raw("\\n")
      case 0x0D: raw("\\r")
      case 0x09: raw("\\t")
      case 0..<0x20:
        raw("\\u00")
        bytes.append(JSONWriter.hexDigits[Int(byte >> 4)])
        bytes.append(JSONWriter.hexDigits[Int(byte & 0xF)])
      default: bytes.append(byte)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

  public mutating func integer(_ value: Int64) {
    bytes.append(contentsOf: String(value).utf8)
  }

  /// Non-finite numbers have no JSON form and are written as null.
  public mutating func number(_ value: Double) {
    guard value.isFinite else { return raw("null") }
    if value.rounded() == value, abs(value) < 1e15 {
      // Whole numbers are written without a fraction, as most JSON writers do.
      return integer(Int64(value))
    }
    bytes.append(contentsOf: value.description.utf8)
  }

  public mutating func bool(_ value: Bool) { value ? raw("true") : raw("false") }

  /// Writes `"key":` — the caller writes the separating commas.
  public mutating func key(_ key: String) {
    string(key)
    bytes.append(UInt8(ascii: ":"))
  }

  public mutating func value(_ value: JSONValue) {
    switch value {
    case .null: raw("null")
    case .bool(let bool): self.bool(bool)
    case .integer(let integer): self.integer(integer)
    case .number(let number): self.number(number)
    case .string(let string): self.string(string)
    case .array(let array):
      bytes.append(UInt8(ascii: "["))
      for (index, element) in array.enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        self.value(element)
      }
      bytes.append(UInt8(ascii: "]"))
    case .object(let object):
      bytes.append(UInt8(ascii: "{"))
      for (index, entry) in object.entries.enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        key(entry.key)
        self.value(entry.value)
      }
      bytes.append(UInt8(ascii: "}"))
    }
  }
}

extension JSONValue {
  /// Compact JSON text with keys in their stored order.
  public var jsonText: String {
    var writer = JSONWriter()
    writer.value(self)
    return writer.string
  }
}

extension JSONValue {
  /// JSON text for people to read: objects and arrays of containers one
  /// entry per line, indented by two spaces; arrays of plain values (an
  /// interval, a list of ids) kept on one line. Ends with a line break.
  public var prettyText: String {
    var text = ""
    JSONValue.appendPretty(self, indent: "", to: &text)
    return text + "\n"
  }

  private static func appendPretty(_ value: JSONValue, indent: String, to text: inout String) {
    let inner = indent + "  "
    switch value {
    case .object(let object) where !object.entries.isEmpty:
      text += "{\n"
      for (index, entry) in object.entries.enumerated() {
        text += inner + JSONValue.string(entry.key).jsonText + ": "
        appendPretty(entry.value, indent: inner, to: &text)
        text += index + 1 < object.entries.count ? ",\n" : "\n"
      }
      text += indent + "}"
    case .array(let array) where array.contains(where: \.isContainer):
      text += "[\n"
      for (index, element) in array.enumerated() {
        text += inner
        appendPretty(element, indent: inner, to: &text)
        text += index + 1 < array.count ? ",\n" : "\n"
      }
      text += indent + "]"
    default:
      text += value.jsonText
    }
  }

  private var isContainer: Bool {
    switch self {
    case .object, .array: return true
    default: return false
    }
  }
}
