/// Reading a generated HTML page in tests, as text: the reports are built
/// by string, so their tests find elements by their opening and closing text.
public enum HTMLText {
  /// Every stretch of `html` from `start` to the next `end`, in order.
  public static func elements(_ html: String, start: String, end: String) -> [Substring] {
    var found: [Substring] = []
    var rest = html[...]
    while let open = rest.range(of: start), let close = rest[open.upperBound...].range(of: end) {
      found.append(rest[open.lowerBound..<close.upperBound])
      rest = rest[close.upperBound...]
    }
    return found
  }

  /// The value of `name="..."` in the first tag of `text`.
  public static func attribute(_ name: String, in text: Substring) -> String? {
    guard let tagEnd = text.firstIndex(of: ">") else { return nil }
    let tag = text[..<tagEnd]
    guard let start = tag.range(of: " \(name)=\"") else { return nil }
    let value = tag[start.upperBound...]
    return value.firstIndex(of: "\"").map { String(value[..<$0]) }
  }

  /// How many times `needle` occurs in `text`.
  public static func count(_ needle: String, in text: some StringProtocol) -> Int {
    text.components(separatedBy: needle).count - 1
  }
}
