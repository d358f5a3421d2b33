import Diagnostics
import Foundation

/// Reading the JSON files a user gives (settings, message catalogs, the
/// analytics mapping, traces, a report's inputs) with one kind of error:
/// the file, the line, what is wrong, and what the file should be.
public enum JSONFile {
  /// The bytes of the file at `path`; `what` names it in the errors ("message catalog").
  public static func contents(
    _ path: String, shownAs shown: String? = nil, what: String, status: ExitStatus = .usage, help: String? = nil
  ) throws(WorkbenchError) -> [UInt8] {
    let location = SourceLocation(file: shown ?? path)
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      throw WorkbenchError(status, "no such file", at: location, help: help ?? "check the path of the \(what)")
    }
    guard !isDirectory.boolValue else {
      throw WorkbenchError(status, "is a folder, not a \(what) file", at: location, help: help)
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw WorkbenchError(status, "cannot read the \(what) (permissions?)", at: location, help: help)
    }
    return [UInt8](data)
  }

  /// The file as one JSON document.
  public static func document(
    _ path: String, shownAs shown: String? = nil, what: String, status: ExitStatus = .usage, help: String? = nil
  ) throws(WorkbenchError) -> JSONValue {
    let bytes = try contents(path, shownAs: shown, what: what, status: status, help: help)
    do {
      return try JSONParser.parse(bytes: bytes)
    } catch {
      throw WorkbenchError(
        status, "not valid JSON (column \(error.column)): \(error.message)",
        at: SourceLocation(file: shown ?? path, line: error.line), help: help ?? "fix the JSON at that line")
    }
  }

  /// The file as one JSON object.
  public static func object(
    _ path: String, shownAs shown: String? = nil, what: String, status: ExitStatus = .usage, help: String? = nil
  ) throws(WorkbenchError) -> JSONObject {
    let value = try document(path, shownAs: shown, what: what, status: status, help: help)
    guard case .object(let object) = value else {
      throw WorkbenchError(
        status, "a \(what) must be one JSON object, not \(value.kindName)", at: SourceLocation(file: shown ?? path),
        help: help)
    }
    return object
  }

  /// One line of a JSON Lines file, which must be an object.
  public static func record(
    _ line: ArraySlice<UInt8>, file: String, line number: Int, status: ExitStatus = .input, help: String
  ) throws(WorkbenchError) -> JSONObject {
    let value: JSONValue
    do {
      value = try JSONParser.parse(bytes: Array(line))
    } catch {
      throw WorkbenchError(
        status, "not valid JSON (column \(error.column)): \(error.message)",
        at: SourceLocation(file: file, line: number), help: help)
    }
    guard case .object(let object) = value else {
      throw WorkbenchError(
        status, "each line must be a JSON object, not \(value.kindName)", at: SourceLocation(file: file, line: number),
        help: help)
    }
    return object
  }
}
