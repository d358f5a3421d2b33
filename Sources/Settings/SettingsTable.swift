import JSONCore

/// The listings of `workbench settings`.
public enum SettingsTable {
  /// Lines are kept within this many columns where the content allows.
  static let width = 100

  /// One row per setting with KEY, VALUE (with unit) and SOURCE, and the doc
  /// below it, indented, with the allowed values and the default when the
  /// value is not the default.
  public static func render(_ settings: ResolvedSettings) -> String {
    let rows = settings.all.map { setting in
      (key: setting.key, value: displayedValue(setting), source: setting.source.description)
    }
    let keyWidth = min(max("KEY".count, rows.map(\.key.count).max() ?? 0), 44)
    let valueWidth = min(max("VALUE".count, rows.map(\.value.count).max() ?? 0), 24)
    func row(_ key: String, _ value: String, _ source: String) -> String {
      pad(key, keyWidth) + "  " + pad(value, valueWidth) + "  " + source
    }
    var lines = [row("KEY", "VALUE", "SOURCE")]
    for (setting, cells) in zip(settings.all, rows) {
      lines.append(row(cells.key, cells.value, cells.source))
      lines += wrap(docLine(setting), indent: "    ", width: width)
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// One object per setting, sorted by key, with every field present (null
  /// when it does not apply) so that scripts can rely on the shape.
  public static func json(_ settings: ResolvedSettings) -> JSONValue {
    .array(
      settings.all.map { setting in
        let declaration = setting.declaration
        var choices: JSONValue = .null
        if case .choice(let names) = declaration.type { choices = .array(names.map(JSONValue.string)) }
        return .object(
          JSONObject([
            ("key", .string(setting.key)),
            ("value", setting.value.jsonValue),
            ("type", .string(declaration.type.name)),
            ("default", declaration.defaultValue.jsonValue),
            ("min", declaration.minimum.map(JSONValue.number) ?? .null),
            ("max", declaration.maximum.map(JSONValue.number) ?? .null),
            ("choices", choices),
            ("unit", declaration.unit.map(JSONValue.string) ?? .null),
            ("source", .string(setting.source.description)),
            ("doc", .string(declaration.doc)),
          ]))
      })
  }

  private static func displayedValue(_ setting: ResolvedSetting) -> String {
    if case .string(let string) = setting.value, string.isEmpty { return #""""# }
    return setting.declaration.withUnit(setting.value.description)
  }

  private static func docLine(_ setting: ResolvedSetting) -> String {
    let declaration = setting.declaration
    var notes: [String] = []
    if let range = declaration.rangeDescription { notes.append(range) }
    if case .choice(let names) = declaration.type { notes.append(names.joined(separator: " | ")) }
    if setting.value != declaration.defaultValue {
      notes.append("default " + declaration.withUnit(declaration.defaultValue.quoted))
    }
    return notes.isEmpty ? declaration.doc : "\(declaration.doc) [\(notes.joined(separator: "; "))]"
  }

  private static func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
  }

  /// Word-wraps `text` into lines of at most `width` columns; a single word
  /// longer than that gets a line of its own.
  private static func wrap(_ text: String, indent: String, width: Int) -> [String] {
    var lines: [String] = []
    var line = indent
    for word in text.split(separator: " ") {
      if line.count > indent.count, line.count + 1 + word.count > width {
        lines.append(line)
        line = indent
      }
      line += (line.count > indent.count ? " " : "") + word
    }
    if line.count > indent.count { lines.append(line) }
    return lines
  }
}
