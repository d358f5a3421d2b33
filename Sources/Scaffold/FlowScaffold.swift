import Diagnostics
import Foundation
import JSONCore
import Settings

/// `workbench new`: a folder with a working flow of one kind, its message
/// catalogs, scenes to test it on, QA scenarios that pass and fail, and
/// editor settings, from the templates in configs/templates/.
public enum FlowScaffold {
  public enum Kind: String, CaseIterable, Sendable {
    case face
    case card
    case bestShot = "best-shot"
  }

  /// Writes the folder `parent/name` and returns the files in it, sorted.
  /// The folder appears whole or not at all: it is made under a temporary
  /// name and renamed.
  public static func create(name: String, kind: Kind, parent: String, home: WorkbenchHome) throws(WorkbenchError)
    -> [String]
  {
    // Lower case: the name is also the flow's settings group (setting keys
    // are lower case). "wb" would hide the flow API: the flow's folder is
    // searched first by require.
    guard name.wholeMatch(of: /[a-z][a-z0-9_-]{0,63}/) != nil, name != "wb" else {
      throw WorkbenchError(
        .usage, "'\(name)' cannot name a flow",
        help:
          "use a lower-case letter, then lower-case letters, digits, '-' or '_' (at most 64), such as my-nod; not wb")
    }
    let folder = (parent as NSString).appendingPathComponent(name)
    let display = WorkbenchHome.display(folder)
    if FileManager.default.fileExists(atPath: folder) {
      throw WorkbenchError(
        .usage, "already exists", at: SourceLocation(file: display),
        help: "choose another name, or remove the folder first")
    }
    let templates = home.configs + "/templates"
    let source = templates + "/" + kind.rawValue
    let common = templates + "/common"
    guard FileManager.default.fileExists(atPath: source + "/flow.lua") else {
      throw WorkbenchError(
        .usage, "no template for '\(kind.rawValue)' flows", at: SourceLocation(file: WorkbenchHome.display(source)),
        help: "the workbench folder is incomplete: configs/templates/ comes with it")
    }
    let replacements = [
      ("{{name}}", name), ("{{id}}", name.replacingOccurrences(of: "-", with: "_")), ("{{folder}}", display),
      ("{{meta}}", metaPath(from: folder, home: home)),
    ]
    let scratch = (parent as NSString).appendingPathComponent(".\(name).new-\(getpid())")
    do {
      try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
      var written: [String] = []
      for (root, prefix) in [(source, ""), (common, "")] {
        for relative in try files(under: root) {
          let target = prefix + (relative == "flow.lua" ? "\(name).lua" : relative)
          var text = try String(contentsOfFile: root + "/" + relative, encoding: .utf8)
          for (placeholder, value) in replacements { text = text.replacingOccurrences(of: placeholder, with: value) }
          let path = scratch + "/" + target
          try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
          try text.write(toFile: path, atomically: false, encoding: .utf8)
          written.append(target)
        }
      }
      guard rename(scratch, folder) == 0 else {
        throw WorkbenchError(
          .usage, "cannot create the folder: \(String(cString: strerror(errno)))", at: SourceLocation(file: display))
      }
      return written.sorted()
    } catch let error as WorkbenchError {
      try? FileManager.default.removeItem(atPath: scratch)
      throw error
    } catch {
      try? FileManager.default.removeItem(atPath: scratch)
      throw WorkbenchError(
        .usage, "cannot write the new flow: \(error.localizedDescription)", at: SourceLocation(file: display),
        help: "check that the folder can be written")
    }
  }

  /// The flow API's definitions as the new folder's .luarc.json names them:
  /// relative to the folder, so that it moves with a checkout; escaped for
  /// the JSON string it goes into.
  static func metaPath(from folder: String, home: WorkbenchHome) -> String {
    let target = URL(fileURLWithPath: home.plugins + "/wb/meta").standardizedFileURL.pathComponents
    let base = URL(fileURLWithPath: folder).standardizedFileURL.pathComponents
    var common = 0
    while common < min(target.count, base.count), target[common] == base[common] { common += 1 }
    let relative = Array(repeating: "..", count: base.count - common) + target[common...]
    let text = relative.isEmpty ? "." : relative.joined(separator: "/")
    return String(JSONValue.string(text).jsonText.dropFirst().dropLast())
  }

  /// Every file under `root`, relative to it (hidden files too).
  static func files(under root: String) throws -> [String] {
    var result: [String] = []
    guard let enumerator = FileManager.default.enumerator(atPath: root) else { return [] }
    while let relative = enumerator.nextObject() as? String {
      var isDirectory: ObjCBool = false
      if FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isDirectory),
        !isDirectory.boolValue
      {
        result.append(relative)
      }
    }
    return result.sorted()
  }
}
