import Diagnostics
import Foundation
import JSONCore
import Randomness

/// One labelled session of a corpus: an input and what it presents.
public struct CorpusSession: Sendable, Equatable {
  public enum Label: String, Sendable, CaseIterable {
    case bonaFide = "bona_fide"
    case attack
  }

  /// Unique in the corpus; the input as written when the record gives none.
  public var id: String
  /// The input as the corpus names it (relative to the manifest or folder).
  public var input: String
  /// Where the input is, to open it.
  public var path: String
  public var label: Label
  /// The attack's kind (presentation attack instrument species); nil for bona fide.
  public var species: String?
  public var subject: String?
  /// Settings for this session only, as `key=value` texts, in the record's order.
  public var settings: [(key: String, value: JSONValue)]

  public static func == (lhs: CorpusSession, rhs: CorpusSession) -> Bool {
    lhs.id == rhs.id && lhs.input == rhs.input && lhs.path == rhs.path && lhs.label == rhs.label
      && lhs.species == rhs.species && lhs.subject == rhs.subject
      && lhs.settings.map(\.key) == rhs.settings.map(\.key) && lhs.settings.map(\.value) == rhs.settings.map(\.value)
  }
}

/// A labelled corpus: a manifest (`.jsonl` or `.csv`) or a folder of
/// `bona_fide/**` and `attack/<species>/**`. docs/eval.md.
public struct Corpus: Sendable {
  public var sessions: [CorpusSession]
  /// The manifest or folder, as given.
  public var source: String

  public init(sessions: [CorpusSession], source: String) {
    self.sessions = sessions
    self.source = source
  }

  /// Reads and checks the whole corpus: every problem of every record is
  /// listed in one error (exit 2), so that a corpus is fixed in one go.
  public static func load(_ path: String) throws(WorkbenchError) -> Corpus {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
      throw WorkbenchError(
        .usage, "no such corpus", at: SourceLocation(file: path),
        help: "give a manifest (.jsonl or .csv) or a folder of bona_fide/ and attack/<species>/ (docs/eval.md)")
    }
    var problems: [Diagnostic] = []
    let records: [ManifestRecord]
    if isFolder.boolValue {
      records = folderRecords(path, problems: &problems)
    } else if path.hasSuffix(".csv") {
      records = CSVManifest.records(path, problems: &problems)
    } else if path.hasSuffix(".jsonl") || path.hasSuffix(".ndjson") {
      records = jsonLinesRecords(path, problems: &problems)
    } else {
      throw WorkbenchError(
        .usage, "a corpus is a .jsonl or .csv manifest or a folder", at: SourceLocation(file: path),
        help: "see docs/eval.md for the formats")
    }
    let folder = isFolder.boolValue ? path : (path as NSString).deletingLastPathComponent
    let base = folder.isEmpty ? "." : folder
    var sessions: [CorpusSession] = []
    var lineOfID: [String: Int] = [:]
    for record in records {
      guard let session = record.session(base: base, manifest: path, problems: &problems) else { continue }
      if let first = lineOfID[session.id] {
        problems.append(
          Diagnostic(
            "the id \"\(session.id)\" is used again (first on line \(first))",
            at: SourceLocation(file: path, line: record.line), help: "give every session its own id"))
        continue
      }
      lineOfID[session.id] = record.line
      sessions.append(session)
    }
    if problems.isEmpty && sessions.isEmpty {
      problems.append(
        Diagnostic(
          "the corpus has no sessions", at: SourceLocation(file: path),
          help: "a manifest needs one record per session; a folder needs files under bona_fide/ or attack/<species>/"))
    }
    if !problems.isEmpty { throw WorkbenchError(.usage, problems) }
    return Corpus(sessions: sessions, source: path)
  }

  /// Sessions `I/N` takes (1-based): a stable share by id, whatever the
  /// order of the records, so that shards never overlap and always cover.
  public func shard(_ index: Int, of count: Int) -> [CorpusSession] {
    sessions.filter { Int(StableHash.of($0.id) % UInt64(count)) == index - 1 }
  }

  private static func jsonLinesRecords(_ path: String, problems: inout [Diagnostic]) -> [ManifestRecord] {
    guard let data = FileManager.default.contents(atPath: path) else {
      problems.append(Diagnostic("cannot read the manifest", at: SourceLocation(file: path)))
      return []
    }
    var records: [ManifestRecord] = []
    for (offset, line) in String(decoding: data, as: UTF8.self).split(
      separator: "\n", omittingEmptySubsequences: false
    ).enumerated() {
      let text = line.hasSuffix("\r") ? line.dropLast() : line
      if text.allSatisfy(\.isWhitespace) { continue }
      let number = offset + 1
      do {
        guard case .object(let object) = try JSONParser.parse(String(text)) else {
          problems.append(
            Diagnostic("each line must be a JSON object", at: SourceLocation(file: path, line: number)))
          continue
        }
        records.append(ManifestRecord(line: number, fields: object))
      } catch {
        problems.append(
          Diagnostic(
            "not valid JSON (column \(error.column)): \(error.message)", at: SourceLocation(file: path, line: number)))
      }
    }
    return records
  }

  /// `bona_fide/**` and `attack/<species>/**`: every file below is a
  /// session (hidden files and sidecars left out), its id the path in the folder.
  private static func folderRecords(_ root: String, problems: inout [Diagnostic]) -> [ManifestRecord] {
    var records: [ManifestRecord] = []
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
    for entry in entries.sorted() where !entry.hasPrefix(".") {
      switch entry {
      case CorpusSession.Label.bonaFide.rawValue:
        for input in FolderInputs.list(root + "/" + entry, relativeTo: root) {
          records.append(ManifestRecord(line: nil, input: input, label: entry, species: nil))
        }
      case CorpusSession.Label.attack.rawValue:
        let kinds = (try? FileManager.default.contentsOfDirectory(atPath: root + "/attack")) ?? []
        for species in kinds.sorted() where !species.hasPrefix(".") {
          var isFolder: ObjCBool = false
          let folder = root + "/attack/" + species
          guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            problems.append(
              Diagnostic(
                "attack/\(species) is a file; attacks go in a folder per species (attack/print/...)",
                at: SourceLocation(file: root)))
            continue
          }
          for input in FolderInputs.list(folder, relativeTo: root) {
            records.append(ManifestRecord(line: nil, input: input, label: "attack", species: species))
          }
        }
      default:
        problems.append(
          Diagnostic(
            "\(entry) is neither bona_fide nor attack", at: SourceLocation(file: root),
            help: "a corpus folder holds bona_fide/ and attack/<species>/ (docs/eval.md)"))
      }
    }
    return records
  }
}

/// One record as the manifest wrote it, checked into a session.
struct ManifestRecord {
  var line: Int?
  var fields: JSONObject

  init(line: Int?, fields: JSONObject) {
    self.line = line
    self.fields = fields
  }

  init(line: Int?, input: String, label: String, species: String?) {
    var fields = JSONObject([("input", .string(input)), ("label", .string(label))])
    if let species { fields["species"] = .string(species) }
    self.init(line: line, fields: fields)
  }

  static let keys = ["input", "label", "species", "id", "subject", "set"]

  func session(base: String, manifest: String, problems: inout [Diagnostic]) -> CorpusSession? {
    let location = SourceLocation(file: manifest, line: line)
    let before = problems.count
    func problem(_ message: String, help: String? = nil) {
      problems.append(Diagnostic(message, at: location, help: help))
    }
    for (key, _) in fields where !Self.keys.contains(key) {
      let suggestion =
        closestNames(to: key, among: Self.keys, limit: 1).first.map { " (did you mean \"\($0)\"?)" } ?? ""
      problem("unknown key \"\(key)\"\(suggestion)", help: "a record has \(Self.keys.joined(separator: ", "))")
    }
    func text(_ key: String) -> String? {
      guard let value = fields[key], value != .null else { return nil }
      guard let text = value.stringValue, !text.isEmpty else {
        problem("\"\(key)\" must be a non-empty string, not \(value.kindName)")
        return nil
      }
      return text
    }
    let input = text("input")
    if fields["input"] == nil { problem("missing \"input\" (the recording, trace or schedule of the session)") }
    var path: String?
    if let input {
      let full = input.hasPrefix("/") ? input : base + "/" + input
      if FileManager.default.fileExists(atPath: full) {
        path = full
      } else {
        problem("the input \(input) does not exist", help: "paths are relative to the manifest")
      }
    }
    var label: CorpusSession.Label?
    if let text = text("label") {
      label = CorpusSession.Label(rawValue: text)
      if label == nil { problem("unknown label \"\(text)\"", help: "a label is bona_fide or attack") }
    } else if fields["label"] == nil {
      problem("missing \"label\" (bona_fide or attack)")
    }
    let species = text("species")
    if label == .attack && species == nil && fields["species"] == nil {
      problem("an attack needs its \"species\" (print, replay, mask, ...)")
    }
    if label == .bonaFide, species != nil { problem("a bona fide session has no species") }
    var settings: [(key: String, value: JSONValue)] = []
    if let set = fields["set"], set != .null {
      if case .object(let object) = set {
        for (key, value) in object {
          switch value {
          case .bool, .integer, .number, .string: settings.append((key, value))
          default: problem("\"set\": \(key) must be a number, string or boolean, not \(value.kindName)")
          }
        }
      } else {
        problem("\"set\" must be an object of settings, such as {\"user\": \"s001\"}")
      }
    }
    let id = text("id") ?? input
    let subject = text("subject")
    guard problems.count == before, let input, let path, let label, let id else { return nil }
    return CorpusSession(
      id: id, input: input, path: path, label: label, species: label == .attack ? species : nil, subject: subject,
      settings: settings)
  }
}

/// The inputs under a corpus folder: files, and folders of JPEG frames
/// (a recording), never the sidecars a recording keeps beside it.
enum FolderInputs {
  static func list(_ folder: String, relativeTo root: String) -> [String] {
    var found: [String] = []
    collect(folder, relative: String(folder.dropFirst(root.count + 1)), into: &found)
    return found
  }

  private static func collect(_ folder: String, relative: String, into found: inout [String]) {
    let entries = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    let isFrameFolder =
      !entries.isEmpty && entries.contains { $0.lowercased().hasSuffix(".jpg") || $0.lowercased().hasSuffix(".jpeg") }
    if isFrameFolder && relative.split(separator: "/").count > 1 {
      found.append(relative)
      return
    }
    for entry in entries where !entry.hasPrefix(".") {
      if entry.hasSuffix(".timestamps.jsonl") || entry.hasSuffix(".truth.jsonl") { continue }
      let path = folder + "/" + entry
      var isFolder: ObjCBool = false
      FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
      if isFolder.boolValue {
        collect(path, relative: relative + "/" + entry, into: &found)
      } else {
        found.append(relative + "/" + entry)
      }
    }
  }
}
