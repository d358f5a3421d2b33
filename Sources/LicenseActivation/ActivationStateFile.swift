import Diagnostics
import Foundation
import JSONCore
import Licensing

/// The state file of `license serve --state`:
/// `{"workbench_activations":1,"activations":[{"eid","product","fingerprint"|null,"license_id","first_activated","last_activated"}]}`.
enum ActivationState {
  static let formatKey = "workbench_activations"
  static let version: Int64 = 1

  struct Record: Sendable, Equatable {
    var eid: String
    var product: String
    /// Nil for a container-mode activation.
    var fingerprint: String?
    var licenseID: String
    var firstActivated: Date
    var lastActivated: Date
  }

  /// The records of the file at `path`; none when there is no file yet.
  static func read(_ path: String) throws(WorkbenchError) -> [Record] {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      let folder = (path as NSString).deletingLastPathComponent
      guard folder.isEmpty || FileManager.default.fileExists(atPath: folder) else {
        throw WorkbenchError(
          .usage, "the folder \(folder) does not exist", at: SourceLocation(file: path),
          help: "create it first or choose another --state path")
      }
      return []
    }
    let help =
      "the state file is written by `workbench license serve --state`; move a damaged one away to start counting anew"
    guard !isDirectory.boolValue, let data = FileManager.default.contents(atPath: path) else {
      throw WorkbenchError(
        .usage, isDirectory.boolValue ? "is a folder, not a file" : "cannot read the state file",
        at: SourceLocation(file: path), help: help)
    }
    let document: JSONValue
    do {
      document = try JSONParser.parse(bytes: Array(data))
    } catch {
      throw WorkbenchError(
        .usage, "not an activation state file: not JSON (\(error))", at: SourceLocation(file: path, line: error.line),
        help: help)
    }
    guard document[formatKey]?.integerValue == version, let list = document["activations"]?.arrayValue else {
      throw WorkbenchError(
        .usage, "not an activation state file (version \(version))", at: SourceLocation(file: path), help: help)
    }
    var records: [Record] = []
    for (index, item) in list.enumerated() {
      guard let eid = item["eid"]?.stringValue, let product = item["product"]?.stringValue,
        let licenseID = item["license_id"]?.stringValue,
        let first = item["first_activated"]?.stringValue.flatMap(License.date(fromTimestamp:)),
        let last = item["last_activated"]?.stringValue.flatMap(License.date(fromTimestamp:)),
        item["fingerprint"] == .null || item["fingerprint"]?.stringValue.flatMap(MachineFingerprint.init) != nil
      else {
        throw WorkbenchError(
          .usage, "activation \(index + 1) of the state file cannot be read", at: SourceLocation(file: path),
          help: help)
      }
      records.append(
        Record(
          eid: eid, product: product, fingerprint: item["fingerprint"]?.stringValue, licenseID: licenseID,
          firstActivated: first, lastActivated: last))
    }
    return records
  }

  /// Removes the temporary files (`.NAME.PID.tmp`, `.NAME.PID.N.tmp`) that a
  /// server killed while it wrote `path` left beside it. The state itself
  /// is whole (the temporary file is renamed over it only once written);
  /// these are litter. A file of a process that still runs is kept.
  static func removeTemporaryFilesOfStoppedServers(_ path: String) {
    let parent = (path as NSString).deletingLastPathComponent
    let folder = parent.isEmpty ? "." : parent
    let prefix = "." + (path as NSString).lastPathComponent + "."
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
    for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
      let middle = name.dropFirst(prefix.count).dropLast(".tmp".count)
      guard let pid = middle.split(separator: ".").first.flatMap({ Int32($0) }), pid > 0 else { continue }
      if kill(pid, 0) == -1 && errno == ESRCH { unlink(folder + "/" + name) }
    }
  }

  /// Replaces the file at `path` atomically (mode 0600).
  static func write(_ records: [Record], to path: String) throws(WorkbenchError) {
    let list = records.map { record in
      JSONValue.object(
        JSONObject([
          ("eid", .string(record.eid)), ("product", .string(record.product)),
          ("fingerprint", record.fingerprint.map { .string($0) } ?? .null), ("license_id", .string(record.licenseID)),
          ("first_activated", .string(License.timestamp(record.firstActivated))),
          ("last_activated", .string(License.timestamp(record.lastActivated))),
        ]))
    }
    let document = JSONValue.object(JSONObject([(formatKey, .integer(version)), ("activations", .array(list))]))
    try LicenseFiles.write(Data((document.jsonText + "\n").utf8), to: path, mode: 0o600, replacing: true)
  }
}
