/// A syntax error with the 1-based line and column where reading stopped.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
  public var line: Int
  public var column: Int
  public var message: String

  public var description: String { "line \(line), column \(column): \(message)" }
}

/// A strict RFC 8259 parser over UTF-8 bytes. It keeps key order, tells
/// integers from fractions and reports the line and column of an error.
public struct JSONParser {
  private let bytes: [UInt8]
  private var index = 0
  private var line = 1
  private var lineStart = 0
  private var depth = 0
  private static let maximumDepth = 256

  private init(bytes: [UInt8]) { self.bytes = bytes }

  /// Parses one JSON document; anything but whitespace after it is an error.
  public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
    try parse(bytes: Array(text.utf8))
  }

  public static func parse(bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
    var parser = JSONParser(bytes: bytes)
    // A UTF-8 byte-order mark, as some Windows editors write at the start of
    // a file, is skipped (RFC 8259 allows a parser to ignore it).
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
      parser.index = 3
      parser.lineStart = 3
    }
    parser.skipWhitespace()
    let value = try parser.parseValue()
    parser.skipWhitespace()
    if parser.index < parser.bytes.count {
      throw parser.error("unexpected text after the JSON value")
    }
    return value
  }

  private func error(_ message: String) -> JSONSyntaxError {
    JSONSyntaxError(line: line, column: index - lineStart + 1, message: message)
  }

  private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

  private mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
        index += 1
      case UInt8(ascii: "\n"):
        index += 1
        line += 1
        lineStart = index
      default:
        return
      }
    }
  }

  private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
    guard let byte = current else { throw error("unexpected end of input, expected a value") }
    switch byte {
    case UInt8(ascii: "{"): return try parseObject()
    case UInt8(ascii: "["): return try parseArray()
    case UInt8(ascii: "\""): return .string(try parseString())
    case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
    case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
    case UInt8(ascii: "n"): try expectWord("null"); return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
    default:
      throw error("unexpected character '\(Character(Unicode.Scalar(byte)))', expected a value")
    }
  }

  private mutating func expectWord(_ word: StaticString) throws(JSONSyntaxError) {
    let wordBytes = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
    guard index + wordBytes.count <= bytes.count,
      bytes[index..<index + wordBytes.count].elementsEqual(wordBytes)
    else { throw error("invalid literal, expected '\(word)'") }
    index += wordBytes.count
  }

  private mutating func enterContainer() throws(JSONSyntaxError) {
    depth += 1
    if depth > JSONParser.maximumDepth { throw error("nesting deeper than \(JSONParser.maximumDepth)") }
  }

  private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
    try enterContainer()
    defer { depth -= 1 }
    index += 1
    var object = JSONObject()
    skipWhitespace()
    if current == UInt8(ascii: "}") {
      index += 1
      return .object(object)
    }
    while true {
      skipWhitespace()
      guard current == UInt8(ascii: "\"") else { throw error("expected a quoted key") }
      let key = try parseString()
      // The object's own lookup: a scan while it is small, its index once large.
      if object.contains(key) { throw error("duplicate key \"\(key)\"") }
      skipWhitespace()
      guard current == UInt8(ascii: ":") else { throw error("expected ':' after key \"\(key)\"") }
      index += 1
      skipWhitespace()
      let value = try parseValue()
      object.appendNew(key, value)
      skipWhitespace()
      switch current {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "}"): index += 1; return .object(object)
      default: throw error("expected ',' or '}' in object")
      }
    }
  }

  private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
    try enterContainer()
    defer { depth -= 1 }
    index += 1
    var array: [JSONValue] = []
    skipWhitespace()
    if current == UInt8(ascii: "]") {
      index += 1
      return .array(array)
    }
    while true {
      skipWhitespace()
      array.append(try parseValue())
      skipWhitespace()
      switch current {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "]"): index += 1; return .array(array)
      default: throw error("expected ',' or ']' in array")
      }
    }
  }

  /// The string of `bytes`; with `checked`, an error at the string when they are not UTF-8.
  private func text(_ bytes: ArraySlice<UInt8>, checked: Bool, from start: Int) throws(JSONSyntaxError) -> String {
    guard checked else { return String(decoding: bytes, as: UTF8.self) }
    guard let string = String(validating: bytes, as: UTF8.self) else {
      throw JSONSyntaxError(
        line: line, column: start - lineStart, message: "the string is not valid UTF-8 (save the file as UTF-8)")
    }
    return string
  }

  private mutating func parseString() throws(JSONSyntaxError) -> String {
    index += 1
    let start = index
    // Only strings with bytes above ASCII are checked for valid UTF-8.
    var beyondASCII = false
    // Fast path: no escapes.
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        let string = try text(bytes[start..<index], checked: beyondASCII, from: start)
        index += 1
        return string
      }
      if byte == UInt8(ascii: "\\") { break }
      if byte < 0x20 { throw error("control character in string") }
      beyondASCII = beyondASCII || byte >= 0x80
      index += 1
    }
    var scalars = Array(bytes[start..<index])
    while index < bytes.count {
      let byte = bytes[index]
      switch byte {
      case UInt8(ascii: "\""):
        index += 1
        return try text(scalars[...], checked: true, from: start)
      case UInt8(ascii: "\\"):
        index += 1
        guard let escape = current else { break }
        index += 1
        switch escape {
        case UInt8(ascii: "\""): scalars.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): scalars.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "/"): scalars.append(UInt8(ascii: "/"))
        case UInt8(ascii: "b"): scalars.append(0x08)
        case UInt8(ascii: "f"): scalars.append(0x0C)
        case UInt8(ascii: "n"): scalars.append(0x0A)
        case UInt8(ascii: "r"): scalars.append(0x0D)
        case UInt8(ascii: "t"): scalars.append(0x09)
        case UInt8(ascii: "u"):
          var code = try parseHex4()
          if (0xD800..<0xDC00).contains(code) {
            guard current == UInt8(ascii: "\\"), index + 1 < bytes.count,
              bytes[index + 1] == UInt8(ascii: "u")
            else { throw error("unpaired surrogate in \\u escape") }
            index += 2
            let low = try parseHex4()
            guard (0xDC00..<0xE000).contains(low) else { throw error("invalid low surrogate") }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
          } else if (0xDC00..<0xE000).contains(code) {
            throw error("unpaired surrogate in \\u escape")
          }
          guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
          scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
        default:
          throw error("invalid escape '\\\(Character(Unicode.Scalar(escape)))'")
        }
      default:
        if byte < 0x20 { throw error("control character in string") }
        scalars.append(byte)
        index += 1
      }
    }
    throw error("unterminated string")
  }

  private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
    guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[index]
      let digit: UInt32
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
      default: throw error("invalid hex digit in \\u escape")
      }
      value = value << 4 | digit
      index += 1
    }
    return value
  }

  private mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
    let start = index
    var isInteger = true
    if current == UInt8(ascii: "-") { index += 1 }
    guard let first = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
      throw error("invalid number")
    }
    if first == UInt8(ascii: "0") {
      index += 1
    } else {
      skipDigits()
    }
    if current == UInt8(ascii: ".") {
      isInteger = false
      index += 1
      guard skipDigits() > 0 else { throw error("expected digits after '.'") }
    }
    if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
      isInteger = false
      index += 1
      if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
      guard skipDigits() > 0 else { throw error("expected digits in exponent") }
    }
    let text = String(decoding: bytes[start..<index], as: UTF8.self)
    if isInteger, let integer = Int64(text) { return .integer(integer) }
    guard let number = Double(text), number.isFinite else { throw error("number out of range") }
    return .number(number)
  }

  @discardableResult
  private mutating func skipDigits() -> Int {
    let start = index
    while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
    return index - start
  }
}
