import Diagnostics
import Foundation

/// Reads `license.conf` (LUNA ID XML) or `vllicense.plist` into a checked
/// ``LicenseConfig``. Every problem is collected, each naming the file, the
/// line where known, the key and the rule; they are thrown together with
/// exit status 3 (license).
public enum LicenseConfigLoader {
  public static func load(path: String) throws(WorkbenchError) -> LicenseConfig {
    guard let data = FileManager.default.contents(atPath: path) else {
      var isDirectory: ObjCBool = false
      let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
      let reason =
        !exists ? "no such license configuration" : isDirectory.boolValue ? "is a folder, not a file" : "cannot be read"
      throw WorkbenchError(
        .license, reason, at: SourceLocation(file: path),
        help: exists
          ? "give the path of a license.conf or vllicense.plist file that is readable"
          : "copy configs/license.conf (or configs/vllicense.plist) and fill in your EID and ProductID")
    }
    return try parse(data: data, path: path)
  }

  /// Reads a configuration from memory; `path` names it in problems and
  /// decides the format when the content does not.
  public static func parse(data: Data, path: String) throws(WorkbenchError) -> LicenseConfig {
    let isPlistName = path.lowercased().hasSuffix(".plist")
    if data.starts(with: Array("bplist".utf8)) {
      if let problem = BinaryPropertyListCheck.problem(in: data) {
        throw WorkbenchError(
          .license, "not a valid binary property list: \(problem)", at: SourceLocation(file: path),
          help: "write it again as XML (plutil -convert xml1), or start from configs/vllicense.plist")
      }
      return try fromPropertyList(data: data, path: path, keyLines: [:], dictionaryLine: nil)
    }
    if data.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
      throw WorkbenchError(
        .license, "the file is empty", at: SourceLocation(file: path),
        help: "start from configs/\(isPlistName ? "vllicense.plist" : "license.conf")")
    }
    let root: MarkupElement?
    do {
      root = try XMLTree.parse(data)
    } catch {
      if isPlistName, data.first != UInt8(ascii: "<") {
        // An old-style (OpenStep) property list is not XML.
        return try fromPropertyList(data: data, path: path, keyLines: [:], dictionaryLine: nil)
      }
      throw WorkbenchError(
        .license,
        "not well-formed \(isPlistName ? "property list" : "XML"): \(error.message) (line \(error.line), column \(error.column))",
        at: SourceLocation(file: path, line: error.line),
        help: error.message.contains("UTF-8")
          ? "save the file as UTF-8 text, with encoding=\"UTF-8\" (or none) in its first line"
          : "fix the XML at line \(error.line); attribute values need quotes and every element must be closed")
    }
    guard let root else {
      throw WorkbenchError(
        .license, "the file holds no XML element", at: SourceLocation(file: path),
        help: "start from configs/\(isPlistName ? "vllicense.plist" : "license.conf")")
    }
    switch root.name {
    case "settings":
      return try fromSettingsXML(root, path: path)
    case "plist":
      var keyLines: [String: [Int]] = [:]
      let dictionary = root.children.first { $0.name == "dict" }
      for element in dictionary?.children ?? [] where element.name == "key" {
        keyLines[element.text.trimmingCharacters(in: .whitespacesAndNewlines), default: []].append(element.line)
      }
      return try fromPropertyList(data: data, path: path, keyLines: keyLines, dictionaryLine: dictionary?.line)
    default:
      throw WorkbenchError(
        .license, "the root element is <\(root.name)>, not <settings> (license.conf) or <plist> (vllicense.plist)",
        at: SourceLocation(file: path, line: root.line),
        help: "start from configs/license.conf or configs/vllicense.plist")
    }
  }

  // MARK: - license.conf

  private static func fromSettingsXML(_ root: MarkupElement, path: String) throws(WorkbenchError) -> LicenseConfig {
    var problems: [Diagnostic] = []
    var entries: [Entry] = []
    var sectionLine: Int?
    for child in root.children {
      guard child.name == "section" else {
        problems.append(
          Diagnostic(
            "unexpected element <\(child.name)> in <settings>", at: SourceLocation(file: path, line: child.line),
            help: "<settings> holds one <section name=\"\(LicenseConfig.sectionName)\">"))
        continue
      }
      let name = child.attributes["name"] ?? ""
      guard name == LicenseConfig.sectionName else {
        problems.append(
          Diagnostic(
            "unknown section '\(name)'", at: SourceLocation(file: path, line: child.line),
            help: "the licensing keys go in <section name=\"\(LicenseConfig.sectionName)\">"))
        continue
      }
      if sectionLine == nil { sectionLine = child.line }
      for element in child.children {
        guard element.name == "param", let key = element.attributes["name"], !key.isEmpty else {
          let what =
            element.name == "param" ? "a <param> without a name attribute" : "unexpected element <\(element.name)>"
          problems.append(
            Diagnostic(
              what, at: SourceLocation(file: path, line: element.line),
              help: "write each key as <param name=\"KEY\" type=\"...\" .../>"))
          continue
        }
        entries.append(Entry(key: key, value: xmlValue(of: element, key: key), line: element.line))
      }
    }
    if sectionLine == nil && problems.isEmpty {
      problems.append(
        Diagnostic(
          "no <section name=\"\(LicenseConfig.sectionName)\">", at: SourceLocation(file: path, line: root.line),
          help: "put the keys in <section name=\"\(LicenseConfig.sectionName)\"> inside <settings>"))
    }
    return try validate(
      entries, path: path, format: .xml, containerLine: sectionLine ?? root.line, earlierProblems: problems)
  }

  private static func xmlValue(of element: MarkupElement, key: String) -> Value {
    guard let kind = Self.kinds[key] else { return .string("") }
    let type = element.attributes["type"]
    switch kind {
    case .string:
      if let type, type != "Value::String" {
        return .wrongType("has type=\"\(type)\"; it must be type=\"Value::String\" with a text attribute")
      }
      guard let text = element.attributes["text"] else {
        return .wrongType("has no text attribute; write it as text=\"...\"")
      }
      return .string(text)
    case .integer, .flag:
      if let type, type != "Value::Int1" {
        return .wrongType("has type=\"\(type)\"; it must be type=\"Value::Int1\" with an x attribute")
      }
      guard let x = element.attributes["x"] else {
        return .wrongType("has no x attribute; write it as x=\"\(kind == .flag ? "0" : "15")\"")
      }
      let trimmed = x.trimmingCharacters(in: .whitespaces)
      guard let number = Int64(trimmed) else { return .notWhole("'\(x)'") }
      return .integer(number)
    }
  }

  // MARK: - vllicense.plist

  private static func fromPropertyList(
    data: Data, path: String, keyLines: [String: [Int]], dictionaryLine: Int?
  ) throws(WorkbenchError) -> LicenseConfig {
    let object: Any
    do {
      object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
    } catch {
      if data.starts(with: Array("bplist".utf8)) {
        // The reader falls back to text on a binary list it cannot read
        // and reports the text reader's complaint about byte 'b'.
        throw WorkbenchError(
          .license, "not a valid binary property list: it is damaged or nested too deeply to read",
          at: SourceLocation(file: path),
          help: "write it again as XML (plutil -convert xml1), or start from configs/vllicense.plist")
      }
      let detail = plistErrorText(error)
      throw WorkbenchError(
        .license, "not a valid property list: \(detail.text)", at: SourceLocation(file: path, line: detail.line),
        help: "each <key> in the <dict> must be followed by its value, e.g. <key>EID</key><string>...</string>")
    }
    guard let dictionary = object as? [String: Any] else {
      throw WorkbenchError(
        .license, "the property list must hold a dictionary (<dict>) at the top", at: SourceLocation(file: path),
        help: "start from configs/vllicense.plist")
    }
    var problems: [Diagnostic] = []
    var entries: [Entry] = []
    let ordered = dictionary.sorted { (lineOf($0.key, in: keyLines), $0.key) < (lineOf($1.key, in: keyLines), $1.key) }
    for (key, raw) in ordered {
      let keyLinesOfKey = keyLines[key] ?? []
      if keyLinesOfKey.count > 1 {
        // PropertyListSerialization keeps one of them; say that there were two.
        problems.append(
          Diagnostic(
            "'\(key)' is given again (first at line \(keyLinesOfKey[0]))",
            at: SourceLocation(file: path, line: keyLinesOfKey[1], key: key), help: "keep only one of them"))
      }
      entries.append(Entry(key: key, value: plistValue(raw, key: key), line: keyLinesOfKey.first))
    }
    return try validate(
      entries, path: path, format: .propertyList, containerLine: dictionaryLine, earlierProblems: problems)
  }

  private static func lineOf(_ key: String, in keyLines: [String: [Int]]) -> Int {
    keyLines[key]?.first ?? Int.max
  }

  private static func plistValue(_ raw: Any, key: String) -> Value {
    guard let kind = Self.kinds[key] else { return .string("") }
    switch kind {
    case .string:
      if let text = raw as? String { return .string(text) }
      return .wrongType("must be a <string>, not \(plistKind(raw))")
    case .integer, .flag:
      if raw is String {
        return .wrongType("must be an <integer>, not a <string>")
      }
      if let number = raw as? Int { return .integer(Int64(number)) }
      if kind == .flag, let flag = raw as? Bool { return .integer(flag ? 1 : 0) }
      if let number = raw as? Double { return .notWhole("\(number)") }
      return .wrongType("must be an <integer>, not \(plistKind(raw))")
    }
  }

  private static func plistKind(_ raw: Any) -> String {
    switch raw {
    case is String: return "a <string>"
    case is Bool: return "<true/> or <false/>"
    case is Int: return "an <integer>"
    case is Double: return "a <real>"
    case is Date: return "a <date>"
    case is Data: return "<data>"
    case is [Any]: return "an <array>"
    case is [String: Any]: return "a <dict>"
    default: return "\(type(of: raw))"
    }
  }

  private static func plistErrorText(_ error: Error) -> (text: String, line: Int?) {
    let nsError = error as NSError
    let text =
      (nsError.userInfo["NSDebugDescription"] as? String) ?? nsError.localizedDescription
    // CoreFoundation ends its messages with "at line N".
    var line: Int?
    if let range = text.range(of: "at line ", options: .backwards) {
      line = Int(text[range.upperBound...].prefix { $0.isNumber })
    }
    return (text, line)
  }

  // MARK: - Rules

  private enum Kind { case string, integer, flag }

  private static let kinds: [String: Kind] = [
    "Server": .string, "EID": .string, "ProductID": .string, "Filename": .string,
    "ContainerMode": .flag, "ConnectionTimeout": .integer,
  ]

  private enum Value {
    case string(String)
    case integer(Int64)
    /// A value of the wrong kind; the text says what it must be.
    case wrongType(String)
    /// A number or text that is not a whole number.
    case notWhole(String)
  }

  private struct Entry {
    var key: String
    var value: Value
    var line: Int?
  }

  private static func validate(
    _ entries: [Entry], path: String, format: LicenseConfig.Format, containerLine: Int?,
    earlierProblems: [Diagnostic]
  ) throws(WorkbenchError) -> LicenseConfig {
    var problems = earlierProblems
    func problem(_ key: String, _ line: Int?, _ message: String, help: String) {
      problems.append(Diagnostic(message, at: SourceLocation(file: path, line: line, key: key), help: help))
    }
    var first: [String: Entry] = [:]
    for entry in entries {
      if let earlier = first[entry.key] {
        // A property list keeps only one value per key; its duplicates are reported from the key lines.
        if format == .xml {
          problem(
            entry.key, entry.line, "'\(entry.key)' is given again (first at line \(earlier.line ?? 0))",
            help: "keep only one of them")
        }
        continue
      }
      first[entry.key] = entry
      guard kinds[entry.key] != nil else {
        let known = LicenseConfig.keys.joined(separator: ", ")
        let suggestion = closestKey(to: entry.key).map { "did you mean '\($0)'? " } ?? ""
        problem(
          entry.key, entry.line, "unknown key '\(entry.key)' (known: \(known))",
          help: suggestion + "keys are case-sensitive; remove the ones workbench does not know")
        continue
      }
    }

    var config = LicenseConfig(path: path, format: format, server: "", eid: "", productID: "")
    config.givenKeys = Set(first.keys.filter { kinds[$0] != nil })

    func string(_ key: String) -> (String, Int?)? {
      guard let entry = first[key] else { return nil }
      switch entry.value {
      case .string(let text): return (text, entry.line)
      case .wrongType(let rule):
        problem(key, entry.line, "'\(key)' \(rule)", help: "write it as " + example(key, format: format))
      default:
        problem(key, entry.line, "'\(key)' must be a string", help: "write it as " + example(key, format: format))
      }
      return nil
    }
    func integer(_ key: String, rule: String) -> (Int64, Int?)? {
      guard let entry = first[key] else { return nil }
      switch entry.value {
      case .integer(let number): return (number, entry.line)
      case .wrongType(let text):
        problem(key, entry.line, "'\(key)' \(text)", help: "write it as " + example(key, format: format))
      case .notWhole(let text):
        problem(
          key, entry.line, "'\(key)' must be a whole number (\(rule)), got \(text)",
          help: "write it as " + example(key, format: format))
      case .string:
        problem(key, entry.line, "'\(key)' must be a whole number", help: "write it as " + example(key, format: format))
      }
      return nil
    }

    for key in LicenseConfig.requiredKeys {
      let what = key == "Server" ? "the activation server's URL" : key == "EID" ? "your entitlement ID" : "the product"
      guard first[key] != nil else {
        problem(
          key, containerLine, "'\(key)' is required (\(what)) but missing",
          help: "add " + example(key, format: format))
        continue
      }
      guard let (value, line) = string(key) else { continue }
      if value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
        problem(
          key, line, "'\(key)' is required (\(what)) but empty", help: "fill it in: " + example(key, format: format))
        continue
      }
      switch key {
      case "Server":
        if let url = URL(string: value), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
          let host = url.host, !host.isEmpty
        {
          config.server = value
        } else {
          problem(
            key, line, "'Server' must be an http:// or https:// URL with a host, got '\(value)'",
            help: "write it as, e.g., http://127.0.0.1:8740")
        }
      case "EID": config.eid = value
      default: config.productID = value
      }
    }

    config.filename = LicenseConfig.defaultFilename
    if let (filename, line) = string("Filename") {
      if filename.isEmpty {
        problem(
          "Filename", line, "'Filename' must not be empty",
          help: "remove it to use the default \(LicenseConfig.defaultFilename), or give a name")
      } else if filename.count > LicenseConfig.maximumFilenameLength {
        problem(
          "Filename", line,
          "'Filename' is \(filename.count) characters long; at most \(LicenseConfig.maximumFilenameLength) are allowed",
          help: "use a shorter name (the default is \(LicenseConfig.defaultFilename))")
      } else {
        config.filename = filename
      }
    }

    config.containerMode = false
    if let (mode, line) = integer("ContainerMode", rule: "0 or 1") {
      if mode == 0 || mode == 1 {
        config.containerMode = mode == 1
      } else {
        problem(
          "ContainerMode", line, "'ContainerMode' must be 0 or 1, got \(mode)",
          help: "0 binds the license to this machine (the default); 1 is for containers, whose machine changes")
      }
    }

    config.connectionTimeout = LicenseConfig.defaultConnectionTimeout
    if let (seconds, line) = integer("ConnectionTimeout", rule: "seconds") {
      if seconds < 0 {
        problem(
          "ConnectionTimeout", line, "'ConnectionTimeout' must not be negative, got \(seconds)",
          help: timeoutHelp)
      } else if seconds > Int64(LicenseConfig.maximumConnectionTimeout) {
        problem(
          "ConnectionTimeout", line,
          "'ConnectionTimeout' must be at most \(LicenseConfig.maximumConnectionTimeout) seconds, got \(seconds)",
          help: timeoutHelp)
      } else {
        config.connectionTimeout = Int(seconds)
      }
    }

    guard problems.isEmpty else {
      let ordered = problems.enumerated().sorted { lhs, rhs in
        (lhs.element.location?.line ?? Int.max, lhs.offset) < (rhs.element.location?.line ?? Int.max, rhs.offset)
      }
      throw WorkbenchError(.license, ordered.map(\.element))
    }
    return config
  }

  private static let timeoutHelp =
    "give seconds from 0 to \(LicenseConfig.maximumConnectionTimeout); 0 never times out "
    + "(the default is \(LicenseConfig.defaultConnectionTimeout))"

  /// How to write `key` in `format`, with a sample value.
  private static func example(_ key: String, format: LicenseConfig.Format) -> String {
    let sample: String
    switch key {
    case "Server": sample = "http://127.0.0.1:8740"
    case "EID": sample = "YOUR-EID"
    case "ProductID": sample = "YOUR-PRODUCT-ID"
    case "Filename": sample = LicenseConfig.defaultFilename
    case "ContainerMode": sample = "0"
    default: sample = String(LicenseConfig.defaultConnectionTimeout)
    }
    let isString = kinds[key] == .string
    switch format {
    case .xml:
      return isString
        ? "<param name=\"\(key)\" type=\"Value::String\" text=\"\(sample)\"/>"
        : "<param name=\"\(key)\" type=\"Value::Int1\" x=\"\(sample)\"/>"
    case .propertyList:
      return isString
        ? "<key>\(key)</key><string>\(sample)</string>"
        : "<key>\(key)</key><integer>\(sample)</integer>"
    }
  }

  /// The known key closest to `typed`: same letters in another case, or a
  /// few edits away.
  private static func closestKey(to typed: String) -> String? {
    let lowered = typed.lowercased()
    if let sameLetters = LicenseConfig.keys.first(where: { $0.lowercased() == lowered }) { return sameLetters }
    if lowered.count >= 3, let part = LicenseConfig.keys.first(where: { $0.lowercased().contains(lowered) }) {
      return part
    }
    let scored = LicenseConfig.keys.map { ($0, editDistance(lowered, $0.lowercased())) }
    guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(2, lowered.count / 3) else { return nil }
    return best.0
  }
}
