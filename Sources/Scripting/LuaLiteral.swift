import JSONCore

/// Writes a JSON value as a Lua expression, the form in which the host
/// answers calls from Lua (C compiles it into values, so the host never
/// pushes onto the Lua stack itself).
public enum LuaLiteral {
  public static func encode(_ value: JSONValue) -> String {
    var text = ""
    append(value, to: &text)
    return text
  }

  public static func string(_ value: String) -> String {
    var text = ""
    appendString(value, to: &text)
    return text
  }

  /// A Lua string of exactly these bytes, also where they are not UTF-8.
  public static func string(bytes: some Sequence<UInt8>) -> String {
    var text = "\""
    for byte in bytes {
      switch byte {
      case 0x22: text += "\\\""
      case 0x5C: text += "\\\\"
      case 0x0A: text += "\\n"
      case 0x0D: text += "\\r"
      case 0x20..<0x7F: text.unicodeScalars.append(Unicode.Scalar(byte))
      default: text += decimalEscape(UInt32(byte))
      }
    }
    return text + "\""
  }

  private static func append(_ value: JSONValue, to text: inout String) {
    switch value {
    case .null: text += "nil"
    case .bool(let bool): text += bool ? "true" : "false"
    case .integer(let integer): text += String(integer)
    case .number(let number):
      if number.isNaN {
        text += "(0/0)"
      } else if number.isInfinite {
        text += number > 0 ? "math.huge" : "-math.huge"
      } else if number.rounded() == number && abs(number) < 1e15 {
        text += String(Int64(number)) + ".0"
      } else {
        text += "\(number)"
      }
    case .string(let string): appendString(string, to: &text)
    case .array(let array):
      text += "{"
      for (index, element) in array.enumerated() {
        if index > 0 { text += "," }
        append(element, to: &text)
      }
      text += "}"
    case .object(let object):
      text += "{"
      for (index, entry) in object.entries.enumerated() {
        if index > 0 { text += "," }
        text += "["
        appendString(entry.key, to: &text)
        text += "]="
        append(entry.value, to: &text)
      }
      text += "}"
    }
  }

  private static func appendString(_ value: String, to text: inout String) {
    text += "\""
    for scalar in value.unicodeScalars {
      switch scalar.value {
      case 0x22: text += "\\\""
      case 0x5C: text += "\\\\"
      case 0x0A: text += "\\n"
      case 0x0D: text += "\\r"
      case 0..<0x20, 0x7F: text += decimalEscape(scalar.value)
      default: text.unicodeScalars.append(scalar)
      }
    }
    text += "\""
  }

  /// Three digits, so that a digit after the escape is not read into it.
  private static func decimalEscape(_ byte: UInt32) -> String {
    let digits = String(byte)
    return "\\" + String(repeating: "0", count: 3 - digits.count) + digits
  }
}
