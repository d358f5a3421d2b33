/// Text for a terminal that may quote a user's bytes (a file's line, a key,
/// a name): control characters are written as escapes, so an ESC in a trace
/// cannot recolour, clear or retitle the terminal that shows the error.
public enum TerminalText {
  /// `text` with every control character but newline and tab written as
  /// `\u{1B}`: C0 controls, DEL and the C1 controls (U+0080–U+009F, which
  /// some terminals also obey).
  public static func escaped(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: needsEscape) else { return text }
    var out = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      if needsEscape(scalar) {
        out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
      } else {
        out.append(scalar)
      }
    }
    return String(out)
  }

  private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x0A, 0x09: return false
    case 0x00..<0x20, 0x7F..<0xA0: return true
    default: return false
    }
  }
}
