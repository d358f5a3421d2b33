import Diagnostics
import Foundation
import JSONCore

/// A JSON settings file read into dotted keys, in document order.
struct ConfigFile {
  struct Entry {
    var key: String
    var value: JSONValue
    /// The line of the innermost key that led to this value.
    var line: Int?
  }

  var entries: [Entry]

  init(path: String, layer: SettingLayer) throws(WorkbenchError) {
    let bytes = try ConfigFile.readBytes(path: path, layer: layer)
    let document: JSONValue
    do {
      document = try JSONParser.parse(bytes: bytes)
    } catch {
      throw WorkbenchError(
        .usage,
        "settings file '\(path)' is not valid JSON: syntax error at line \(error.line), column \(error.column): "
          + error.message,
        at: SourceLocation(file: path, line: error.line),
        help: "fix the JSON at line \(error.line), column \(error.column); "
          + "keys and strings need double quotes, and a trailing comma is not allowed")
    }
    guard case .object(let object) = document else {
      throw WorkbenchError(
        .usage, "settings file '\(path)' must hold a JSON object, but holds \(document.kindName)",
        at: SourceLocation(file: path),
        help: #"write the settings as an object: {"flow": {"time_limit": 20}} or {"flow.time_limit": 20}"#)
    }
    var lines = keyLines(in: bytes)
    var entries: [Entry] = []
    ConfigFile.flatten(object, prefix: "", into: &entries)
    for index in entries.indices {
      let key = entries[index].key
      if let line = lines[key]?.first {
        entries[index].line = line
        lines[key]?.removeFirst()
      }
    }
    self.entries = entries
  }

  /// `{"flow": {"time_limit": 20}}` gives the same entry as `{"flow.time_limit": 20}`.
  private static func flatten(_ object: JSONObject, prefix: String, into entries: inout [Entry]) {
    for (name, value) in object {
      let key = prefix.isEmpty ? name : "\(prefix).\(name)"
      if case .object(let nested) = value {
        flatten(nested, prefix: key, into: &entries)
      } else {
        entries.append(Entry(key: key, value: value, line: nil))
      }
    }
  }

  private static func readBytes(path: String, layer: SettingLayer) throws(WorkbenchError) -> [UInt8] {
    if let data = FileManager.default.contents(atPath: path) { return Array(data) }
    var isDirectory: ObjCBool = false
    let reason: String
    if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
      reason = "no such file"
    } else if isDirectory.boolValue {
      reason = "it is a directory"
    } else {
      reason = "permission denied or an I/O error"
    }
    let help =
      layer == .configFile
      ? "check the path given to --config (a relative path starts at the current directory) "
        + "and that the file is readable"
      : "check that '\(path)' exists and is readable"
    throw WorkbenchError(
      .usage, "cannot read settings file '\(path)': \(reason)", at: SourceLocation(file: path), help: help)
  }
}

/// The lines on which each dotted key path is written, in document order, for
/// a document that has already parsed. Keys inside arrays are not settings and
/// are skipped.
private func keyLines(in bytes: [UInt8]) -> [String: [Int]] {
  struct Container {
    var isObject: Bool
    /// The key path of this object; nil inside arrays.
    var path: [String]?
    var lastKey: String?
  }
  var lines: [String: [Int]] = [:]
  var stack: [Container] = []
  var line = 1
  var expectingKey = false
  var index = 0
  while index < bytes.count {
    let byte = bytes[index]
    switch byte {
    case UInt8(ascii: "\n"):
      line += 1
    case UInt8(ascii: "{"), UInt8(ascii: "["):
      var path: [String]? = nil
      if let parent = stack.last {
        if parent.isObject, let parentPath = parent.path, let key = parent.lastKey { path = parentPath + [key] }
      } else {
        path = []
      }
      let isObject = byte == UInt8(ascii: "{")
      stack.append(Container(isObject: isObject, path: isObject ? path : nil))
      expectingKey = isObject
    case UInt8(ascii: "}"), UInt8(ascii: "]"):
      stack.removeLast()
      expectingKey = false
    case UInt8(ascii: ","):
      expectingKey = stack.last?.isObject ?? false
    case UInt8(ascii: "\""):
      let start = index
      index += 1
      while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
        index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
      }
      if expectingKey, let key = try? JSONParser.parse(bytes: Array(bytes[start...index])).stringValue {
        stack[stack.count - 1].lastKey = key
        if let path = stack[stack.count - 1].path {
          lines[(path + [key]).joined(separator: "."), default: []].append(line)
        }
      }
      expectingKey = false
    default:
      break
    }
    index += 1
  }
  return lines
}
