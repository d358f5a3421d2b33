import Diagnostics
import Foundation
import JSONCore

/// An EID the server activates, and on how many machines at most.
public struct AllowedEID: Sendable, Equatable {
  public var eid: String
  /// How many machines (fingerprints) may hold a license of this EID; each
  /// container-mode activation takes one too.
  public var limit: Int

  /// The limit of `--allow EID` without `:LIMIT`.
  public static let defaultLimit = 1
  public static let maximumLimit = 1_000_000

  public init(eid: String, limit: Int = AllowedEID.defaultLimit) {
    self.eid = eid
    self.limit = limit
  }

  /// `EID` or `EID:LIMIT`, as given after `--allow`.
  public static func parse(_ text: String) throws(WorkbenchError) -> AllowedEID {
    var eid = text
    var limit = defaultLimit
    if let colon = text.lastIndex(of: ":") {
      let count = text[text.index(after: colon)...]
      guard let number = Int(count), (1...maximumLimit).contains(number) else {
        throw WorkbenchError(
          .usage, "--allow \(text): the limit after ':' must be a whole number from 1 to \(maximumLimit)",
          help: "write --allow EID or --allow EID:LIMIT, e.g. --allow ACME-0001:3")
      }
      eid = String(text[..<colon])
      limit = number
    }
    guard !eid.trimmingCharacters(in: .whitespaces).isEmpty else {
      throw WorkbenchError(.usage, "--allow \(text): the EID is empty", help: "e.g. --allow ACME-0001:3")
    }
    return AllowedEID(eid: eid, limit: limit)
  }

  /// An allow file: one JSON object from EID to limit, `{"ACME-0001": 3, "ACME-0002": 1}`.
  public static func read(path: String) throws(WorkbenchError) -> [AllowedEID] {
    let help = "an allow file is a JSON object from EID to the number of machines, e.g. {\"ACME-0001\": 3}"
    guard let data = FileManager.default.contents(atPath: path) else {
      throw WorkbenchError(
        .usage, "cannot read the allow file", at: SourceLocation(file: path),
        help: "check the path and the file's permissions; " + help)
    }
    let document: JSONValue
    do {
      document = try JSONParser.parse(bytes: Array(data))
    } catch {
      throw WorkbenchError(
        .usage, "not JSON: \(error)", at: SourceLocation(file: path, line: error.line), help: help)
    }
    guard let object = document.objectValue else {
      throw WorkbenchError(
        .usage, "the allow file holds \(document.kindName), not an object", at: SourceLocation(file: path),
        help: help)
    }
    var allowed: [AllowedEID] = []
    var problems: [Diagnostic] = []
    for (eid, value) in object {
      guard let limit = value.integerValue, (1...Int64(maximumLimit)).contains(limit) else {
        problems.append(
          Diagnostic(
            "the limit of '\(eid)' must be a whole number from 1 to \(maximumLimit), got \(value.jsonText)",
            at: SourceLocation(file: path, key: eid), help: help))
        continue
      }
      if eid.trimmingCharacters(in: .whitespaces).isEmpty {
        problems.append(Diagnostic("an EID is empty", at: SourceLocation(file: path), help: help))
        continue
      }
      allowed.append(AllowedEID(eid: eid, limit: Int(limit)))
    }
    guard problems.isEmpty else { throw WorkbenchError(.usage, problems) }
    return allowed
  }
}
