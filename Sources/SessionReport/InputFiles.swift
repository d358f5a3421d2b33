import Diagnostics
import Foundation
import JSONCore

extension SessionReport.Input {
  /// The input of a run from its files: the `--events` JSON Lines, the
  /// `--trace-out` trace (header line optional) and the JSON of
  /// `workbench settings --json`. Images of captures are looked for as the
  /// events name them from the current folder, then in the events file's folder.
  public static func load(events: String, trace: String?, settings: String?) throws(WorkbenchError)
    -> SessionReport.Input
  {
    let records = try jsonLines(events, what: "events")
    for record in records where record.value["type"]?.stringValue == nil {
      throw WorkbenchError(
        .input, "an event has no \"type\"", at: SourceLocation(file: events, line: record.line),
        help: "give the file that `workbench run --events` wrote (docs/events.md)")
    }
    var frames: [JSONValue] = []
    if let trace {
      for record in try jsonLines(trace, what: "trace") {
        if record.value["workbench_trace"] != nil { continue }
        guard record.value["t"]?.doubleValue != nil else {
          throw WorkbenchError(
            .input, "a frame without a number \"t\"", at: SourceLocation(file: trace, line: record.line),
            help: "give the file that `workbench run --trace-out` wrote (docs/traces.md)")
        }
        frames.append(record.value)
      }
    }
    var rows: [SessionReport.Setting] = []
    if let settings { rows = try settingRows(settings) }
    let eventsFolder = (events as NSString).deletingLastPathComponent
    var folders = ["."]
    if !eventsFolder.isEmpty && eventsFolder != "." { folders.append(eventsFolder) }
    return SessionReport.Input(events: records.map(\.value), frames: frames, settings: rows, imageFolders: folders)
  }

  private static func contents(_ path: String, what: String) throws(WorkbenchError) -> [UInt8] {
    try JSONFile.contents(path, what: what, status: .input)
  }

  /// The JSON objects of a JSON Lines file with their line numbers; blank lines are skipped.
  private static func jsonLines(_ path: String, what: String) throws(WorkbenchError) -> [(line: Int, value: JSONValue)]
  {
    let bytes = try contents(path, what: what)
    var records: [(line: Int, value: JSONValue)] = []
    var lineNumber = 0
    for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
      lineNumber += 1
      var text = Array(line)
      if text.last == UInt8(ascii: "\r") { text.removeLast() }
      if text.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { continue }
      let value = JSONValue.object(
        try JSONFile.record(
          text[...], file: path, line: lineNumber, help: "the \(what) file is JSON Lines: one object a line"))
      guard value.objectValue != nil else {
        throw WorkbenchError(
          .input, "each line must be a JSON object, not \(value.kindName)",
          at: SourceLocation(file: path, line: lineNumber), help: "the \(what) file is JSON Lines: one object a line")
      }
      records.append((lineNumber, value))
    }
    return records
  }

  /// The rows of `workbench settings --json`: an array of objects with `key`, `value` and `source`.
  private static func settingRows(_ path: String) throws(WorkbenchError) -> [SessionReport.Setting] {
    let help = "give the output of `workbench settings FLOW --json`"
    let value = try JSONFile.document(path, what: "settings", status: .input, help: help)
    guard let array = value.arrayValue else {
      throw WorkbenchError(
        .input, "must be a JSON array of settings, not \(value.kindName)", at: SourceLocation(file: path), help: help)
    }
    var rows: [SessionReport.Setting] = []
    for (index, element) in array.enumerated() {
      guard let key = element["key"]?.stringValue, let settingValue = element["value"] else {
        throw WorkbenchError(
          .input, "setting \(index + 1) has no \"key\" or \"value\"", at: SourceLocation(file: path), help: help)
      }
      rows.append(
        SessionReport.Setting(key: key, value: settingValue, source: element["source"]?.stringValue ?? ""))
    }
    return rows
  }
}
