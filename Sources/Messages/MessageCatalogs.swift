import Diagnostics
import Foundation
import JSONCore

/// A hint's text in the language it was found in.
public struct LocalizedText: Sendable, Equatable {
  public var text: String
  public var language: String

  public init(text: String, language: String) {
    self.text = text
    self.language = language
  }
}

/// Per-language message catalogs: `<language>.json` files mapping message
/// keys to texts with `{param}` placeholders. Folders given later override
/// keys of earlier ones (a flow's own `messages/` over `configs/messages/`).
public struct MessageCatalogs: Sendable {
  private var texts: [String: [String: String]] = [:]
  private var files: [String: [String]] = [:]

  public init() {}

  /// Languages that have a catalog, sorted.
  public var languages: [String] { texts.keys.sorted() }

  /// The catalog files of a language, lowest priority first.
  public func files(of language: String) -> [String] { files[language] ?? [] }

  public static func load(directories: [String]) throws(WorkbenchError) -> MessageCatalogs {
    var catalogs = MessageCatalogs()
    for directory in directories {
      try catalogs.add(directory: directory)
    }
    return catalogs
  }

  /// Adds every `<language>.json` of a folder; a missing folder adds nothing.
  public mutating func add(directory: String) throws(WorkbenchError) {
    let names: [String]
    do {
      names = try FileManager.default.contentsOfDirectory(atPath: directory)
    } catch {
      return
    }
    for name in names.sorted() where name.hasSuffix(".json") {
      let language = String(name.dropLast(5))
      let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
      try add(file: path, language: language)
    }
  }

  public mutating func add(file path: String, language: String) throws(WorkbenchError) {
    let value = try JSONFile.document(
      path, what: "message catalog", help: "a catalog is one JSON object of \"key\": \"text\" pairs")
    guard case .object(let object) = value else {
      throw WorkbenchError(
        .usage, "a message catalog must be a JSON object of \"key\": \"text\" pairs", at: SourceLocation(file: path))
    }
    var entries = texts[language] ?? [:]
    var problems: [Diagnostic] = []
    MessageCatalogs.flatten(object, prefix: "", into: &entries, problems: &problems, file: path)
    if !problems.isEmpty { throw WorkbenchError(.usage, problems) }
    texts[language] = entries
    files[language, default: []].append(path)
  }

  private static func flatten(
    _ object: JSONObject, prefix: String, into entries: inout [String: String], problems: inout [Diagnostic],
    file: String
  ) {
    for (key, value) in object {
      let fullKey = prefix + key
      switch value {
      case .string(let text): entries[fullKey] = text
      case .object(let nested): flatten(nested, prefix: fullKey + ".", into: &entries, problems: &problems, file: file)
      default:
        problems.append(
          Diagnostic(
            "the text of a message must be a string, not \(value.kindName)",
            at: SourceLocation(file: file, key: fullKey)))
      }
    }
  }

  public func contains(_ key: String, language: String) -> Bool { texts[language]?[key] != nil }

  /// The text of `key` in `language`, else in `fallback`, with `{param}`
  /// replaced; nil when no catalog has the key.
  public func text(
    for key: String, language: String, fallback: String, parameters: JSONObject? = nil
  ) -> LocalizedText? {
    for candidate in [language, fallback] {
      if let template = texts[candidate]?[key] {
        return LocalizedText(text: MessageCatalogs.substitute(template, parameters), language: candidate)
      }
    }
    return nil
  }

  /// Replaces `{name}` with the parameter's value; `{{` and `}}` stand for
  /// braces. A placeholder without a value is left as it is.
  public static func substitute(_ template: String, _ parameters: JSONObject?) -> String {
    guard template.contains("{") || template.contains("}") else { return template }
    var output = ""
    var index = template.startIndex
    while index < template.endIndex {
      let character = template[index]
      let next = template.index(after: index)
      if character == "{", next < template.endIndex, template[next] == "{" {
        output.append("{")
        index = template.index(after: next)
      } else if character == "}", next < template.endIndex, template[next] == "}" {
        output.append("}")
        index = template.index(after: next)
      } else if character == "{", let close = template[next...].firstIndex(of: "}") {
        let name = String(template[next..<close])
        if let value = parameters?[name] {
          output += display(value)
        } else {
          output += template[index...close]
        }
        index = template.index(after: close)
      } else {
        output.append(character)
        index = next
      }
    }
    return output
  }

  private static func display(_ value: JSONValue) -> String {
    switch value {
    case .string(let string): return string
    case .number(let number):
      // Measurements have noise in the last digits; one decimal reads well.
      let rounded = (number * 10).rounded() / 10
      // Huge or non-finite values have no Int64 form: write them as JSON does.
      guard rounded.isFinite, abs(rounded) < 1e15 else { return value.jsonText }
      return rounded == rounded.rounded() ? String(Int64(rounded)) : String(rounded)
    default: return value.jsonText
    }
  }

  /// The placeholders a text uses, e.g. ["seconds"] for "{seconds} s left".
  public static func placeholders(in template: String) -> Set<String> {
    var names = Set<String>()
    let cleaned = template.replacingOccurrences(of: "{{", with: "").replacingOccurrences(of: "}}", with: "")
    var rest = Substring(cleaned)
    while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
      names.insert(String(rest[rest.index(after: open)..<close]))
      rest = rest[rest.index(after: close)...]
    }
    return names
  }

  /// Problems a flow would hit at run time: keys missing from a catalog,
  /// and texts whose placeholders differ between languages.
  public func problems(forKeys keys: [String]) -> [Diagnostic] {
    let report = check(keys: keys)
    return report.errors + report.warnings
  }

  /// What `workbench check` says of the keys a flow may show: a key missing
  /// from the `fallback` language's catalog (or from every catalog) is an
  /// error, since a run would show the bare key; missing from another
  /// language, a warning, since a run falls back. With no fallback, every
  /// missing key is an error. `ownFolder` is the `messages/` beside the flow,
  /// where the help sends new texts.
  public func check(keys: [String], fallback: String? = nil, ownFolder: String? = nil)
    -> (errors: [Diagnostic], warnings: [Diagnostic])
  {
    var errors: [Diagnostic] = []
    var warnings: [Diagnostic] = []
    let languages = self.languages
    if languages.isEmpty {
      let folder = ownFolder ?? "messages"
      return (
        [Diagnostic("no message catalogs were found", help: "add \(folder)/<language>.json beside the flow")], []
      )
    }
    for key in Set(keys).sorted() {
      let missing = languages.filter { texts[$0]?[key] == nil }
      let fallbackHasIt = fallback.map { texts[$0]?[key] != nil } ?? false
      for language in missing {
        let file = ownFolder.map { "\($0)/\(language).json" } ?? files[language]?.last ?? "\(language).json"
        let place = ownFolder == nil ? "to it" : "to \(file) beside the flow (it is read over the bundled catalog)"
        if fallbackHasIt {
          warnings.append(
            Diagnostic(
              "message key '\(key)' is missing from the '\(language)' catalog: a run in '\(language)' shows the '\(fallback!)' text",
              at: SourceLocation(file: file, key: key), help: "add \"\(key)\": \"...\" \(place)"))
        } else {
          errors.append(
            Diagnostic(
              "message key '\(key)' is missing from the '\(language)' catalog",
              at: SourceLocation(file: file, key: key),
              help: "add \"\(key)\": \"...\" \(place)"))
        }
      }
      let sets = languages.compactMap { language in
        texts[language]?[key].map { (language, MessageCatalogs.placeholders(in: $0)) }
      }
      if let first = sets.first {
        for (language, names) in sets.dropFirst() where names != first.1 {
          errors.append(
            Diagnostic(
              "message '\(key)' uses placeholders {\(first.1.sorted().joined(separator: "}, {"))} in '\(first.0)' but {\(names.sorted().joined(separator: "}, {"))} in '\(language)'",
              at: SourceLocation(file: files[language]?.last ?? "\(language).json", key: key),
              help: "use the same {param} names in every language"))
        }
      }
    }
    return (errors, warnings)
  }
}
