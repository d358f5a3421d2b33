import Diagnostics
import Foundation
import JSONCore

/// Where a run reads its settings files from: the bundled `configs/`, or an
/// integrator's folder (`--settings-dir`) whose files replace the bundled
/// files of the same name, as LUNA ID's `faceengine.conf` can be replaced
/// without rebuilding.
///
/// A replacing JSON file replaces the bundled one whole, so it must give
/// every key the bundled one has: a key left out is an error naming it,
/// never a silent fall-back to the bundled value (the integrator would not
/// know which values are theirs).
public struct SettingsFolder: Sendable {
  /// The bundled folder (`configs/` of the workbench folder).
  public var bundled: String
  /// The integrator's folder, when it is not the bundled one.
  public var replacement: String?
  /// The machine's and the user's folders (/etc/workbench,
  /// ~/.config/workbench), lowest first: their `settings.json` give the
  /// keys they name on top of the bundled file, each shown as its file.
  public var overlays: [String]

  public init(bundled: String, replacement: String?, overlays: [String] = []) {
    self.bundled = bundled
    self.overlays = overlays
    if let replacement, FileIdentity.canonical(replacement) != FileIdentity.canonical(bundled) {
      self.replacement = replacement
    } else {
      self.replacement = nil
    }
  }

  /// The folder for `home`, checking that `--settings-dir` is a folder.
  public static func make(home: WorkbenchHome, settingsDirectory: String?) throws(WorkbenchError) -> SettingsFolder {
    if let settingsDirectory {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: settingsDirectory, isDirectory: &isDirectory) else {
        throw WorkbenchError(
          .usage, "no such settings folder", at: SourceLocation(file: settingsDirectory, key: "--settings-dir"),
          help: "give a folder that holds your own settings.json, messages/ or license.conf (docs/settings.md)")
      }
      guard isDirectory.boolValue else {
        throw WorkbenchError(
          .usage, "is a file, not a folder", at: SourceLocation(file: settingsDirectory, key: "--settings-dir"),
          help: "--settings-dir takes the folder that holds the replacing files, not one file")
      }
    }
    return SettingsFolder(
      bundled: home.configs, replacement: settingsDirectory, overlays: home.configFolders.reversed())
  }

  /// The overlays' files of that name that exist, lowest first.
  public func overlayFiles(_ name: String) -> [String] {
    overlays.map { ($0.hasSuffix("/") ? $0 : $0 + "/") + name }.filter { FileManager.default.fileExists(atPath: $0) }
  }

  /// The file a run reads for `name` (a path relative to the folder, such as
  /// "settings.json" or "messages/en.json"): the replacing one when the
  /// settings folder has it, else the bundled one. Nil when neither exists.
  public func file(_ name: String) -> String? {
    if let replacing = replacingFile(name) { return replacing }
    let path = bundled + "/" + name
    return FileManager.default.fileExists(atPath: path) ? path : nil
  }

  /// The settings folder's file of that name, when there is one.
  public func replacingFile(_ name: String) -> String? {
    guard let replacement else { return nil }
    let path = (replacement.hasSuffix("/") ? replacement : replacement + "/") + name
    return FileManager.default.fileExists(atPath: path) ? path : nil
  }

  /// The JSON file a run reads for `name`, after checking that a replacing
  /// file gives every key of the bundled one. Throws every missing key.
  public func checkedJSONFile(_ name: String) throws(WorkbenchError) -> String? {
    guard let replacing = replacingFile(name) else { return file(name) }
    let bundledPath = bundled + "/" + name
    guard FileManager.default.fileExists(atPath: bundledPath) else { return replacing }
    let missing = try SettingsFolder.missingKeys(replacing: replacing, bundled: bundledPath)
    if missing.isEmpty { return replacing }
    let bundledShown = WorkbenchHome.display(bundledPath)
    let shown = WorkbenchHome.display(replacing)
    // A file that gives a few keys lacks dozens: name the first ones one by
    // one, and the rest in one line.
    let named = missing.count > Self.missingKeysNamed + 1 ? Array(missing.prefix(Self.missingKeysNamed)) : missing
    var diagnostics = named.map { key in
      Diagnostic(
        "missing key '\(key)': this file replaces \(bundledShown) whole, so it must give every key that one has",
        at: SourceLocation(file: shown, key: key),
        help: "copy \(bundledShown) here and change the values you need; its value of '\(key)' is not used")
    }
    if named.count < missing.count {
      let rest = missing.dropFirst(named.count)
      diagnostics.append(
        Diagnostic(
          "\(rest.count) more keys missing: \(rest.joined(separator: ", "))", at: SourceLocation(file: shown),
          help:
            "start from a copy of \(bundledShown) (cp \(bundledShown) \(shown)) and change the values you need; to change a few keys only, give them with --config FILE or --set instead"
        ))
    }
    throw WorkbenchError(.usage, diagnostics)
  }

  /// How many missing keys are named one by one before the rest are listed in one line.
  static let missingKeysNamed = 3

  /// Keys (dotted paths to values that are not objects) of the bundled file
  /// that the replacing file lacks, in the bundled file's order. A file that
  /// cannot be read or parsed is an error naming it.
  static func missingKeys(replacing: String, bundled: String) throws(WorkbenchError) -> [String] {
    let have = Set(leafKeys(try object(at: replacing)))
    return leafKeys(try object(at: bundled)).filter { !have.contains($0) }
  }

  private static func object(at path: String) throws(WorkbenchError) -> JSONObject {
    try JSONFile.object(path, shownAs: WorkbenchHome.display(path), what: "settings file")
  }

  private static func leafKeys(_ object: JSONObject, prefix: String = "") -> [String] {
    var keys: [String] = []
    for (key, value) in object {
      if let nested = value.objectValue, !nested.isEmpty {
        keys += leafKeys(nested, prefix: prefix + key + ".")
      } else {
        keys.append(prefix + key)
      }
    }
    return keys
  }

  /// The message catalogs to load, lowest priority first: each bundled
  /// `messages/<language>.json`, or the settings folder's file of that name
  /// instead (checked complete), then the settings folder's catalogs of
  /// other languages.
  public func messageCatalogFiles() throws(WorkbenchError) -> [(path: String, language: String)] {
    var files: [(path: String, language: String)] = []
    var problems: [Diagnostic] = []
    var seen = Set<String>()
    for name in SettingsFolder.catalogNames(in: bundled + "/messages") {
      let language = String(name.dropLast(5))
      seen.insert(language)
      do {
        if let path = try checkedJSONFile("messages/" + name) {
          files.append((WorkbenchHome.display(path), language))
        }
      } catch {
        problems += error.diagnostics
      }
    }
    if let replacement {
      for name in SettingsFolder.catalogNames(in: replacement + "/messages")
      where !seen.contains(String(name.dropLast(5))) {
        files.append((WorkbenchHome.display(replacement + "/messages/" + name), String(name.dropLast(5))))
      }
    }
    if !problems.isEmpty { throw WorkbenchError(.usage, problems) }
    return files
  }

  private static func catalogNames(in directory: String) -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.filter { $0.hasSuffix(".json") }.sorted()
  }
}
