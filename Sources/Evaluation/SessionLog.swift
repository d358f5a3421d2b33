import Diagnostics
import FileSystem
import Foundation
import JSONCore

/// `sessions.jsonl` as the evaluation goes: each finished session is
/// appended as one whole line and flushed, so that Ctrl-C or a lost node
/// leaves every finished session readable, and `--resume` goes on from
/// there. When the evaluation completes, the file is rewritten in its
/// final order (settings point, then id), whole.
final class SessionLog {
  let path: String
  private let points: [SettingsPoint]
  /// Finished (id, point) pairs, and their records in the order read.
  private var finished: Set<String> = []
  private var records: [SessionRecord] = []
  private var descriptor: Int32 = -1
  private(set) var resumedCount = 0
  private(set) var appendedCount = 0

  /// With `readOnly`, the file's records are read and nothing is written.
  init(path: String, resume: Bool, readOnly: Bool = false, points: [SettingsPoint]) throws(WorkbenchError) {
    self.path = path
    self.points = points
    if readOnly {
      for record in SessionLog.read(path) {
        if let point = pointIndex(of: record.settings) { finished.insert(Self.key(record.id, point)) }
      }
      return
    }
    if resume {
      for record in SessionLog.read(path) {
        guard let point = pointIndex(of: record.settings), finished.insert(Self.key(record.id, point)).inserted
        else { continue }
        records.append(record)
      }
      resumedCount = records.count
      // A line cut by a kill is dropped: the file is rewritten with the whole ones.
      try rewrite(records)
    } else {
      try rewrite([])
    }
    descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw WorkbenchError(.usage, "cannot write the sessions' file", at: SourceLocation(file: path))
    }
  }

  deinit { if descriptor >= 0 { close(descriptor) } }

  var finishedCount: Int { records.count }

  func isFinished(_ id: String, point: Int) -> Bool { finished.contains(Self.key(id, point)) }

  func append(_ record: SessionRecord) throws(WorkbenchError) {
    let line = Array((record.jsonValue.jsonText + "\n").utf8)
    let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    guard written == line.count else {
      throw WorkbenchError(.usage, "cannot write the sessions' file", at: SourceLocation(file: path))
    }
    records.append(record)
    if let point = pointIndex(of: record.settings) { finished.insert(Self.key(record.id, point)) }
    appendedCount += 1
  }

  /// Every record in the final order, the file rewritten in it.
  func complete() throws(WorkbenchError) -> [SessionRecord] {
    let ordered = SessionLog.ordered(records, points: points.map(\.settings))
    try rewrite(ordered)
    return ordered
  }

  /// By settings point, then by id (byte order): the same order however
  /// the sessions were run (`--jobs`, shards, resumed).
  static func ordered(_ records: [SessionRecord], points: [JSONObject]) -> [SessionRecord] {
    let position = Dictionary(
      points.enumerated().map { (JSONValue.object($0.element).jsonText, $0.offset) }, uniquingKeysWith: { a, _ in a })
    return records.sorted { a, b in
      let (pa, pb) = (
        position[JSONValue.object(a.settings).jsonText] ?? 0, position[JSONValue.object(b.settings).jsonText] ?? 0
      )
      if pa != pb { return pa < pb }
      return Array(a.id.utf8).lexicographicallyPrecedes(Array(b.id.utf8))
    }
  }

  /// The whole records of a sessions' file; a cut last line is left out.
  static func read(_ path: String) -> [SessionRecord] {
    guard let data = FileManager.default.contents(atPath: path) else { return [] }
    var records: [SessionRecord] = []
    for line in data.split(separator: UInt8(ascii: "\n")) {
      guard let value = try? JSONParser.parse(bytes: Array(line)), let record = SessionRecord(value) else { continue }
      records.append(record)
    }
    return records
  }

  private func pointIndex(of settings: JSONObject) -> Int? { points.firstIndex { $0.settings == settings } }

  private static func key(_ id: String, _ point: Int) -> String { "\(point)\u{1F}\(id)" }

  private func rewrite(_ records: [SessionRecord]) throws(WorkbenchError) {
    let text = records.map { $0.jsonValue.jsonText + "\n" }.joined()
    try Evaluation.writeFile(path, text)
    if descriptor >= 0 {
      close(descriptor)
      descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
    }
  }
}
