import FaceRecognition
import Foundation
import JSONCore

/// A gallery as JSON Lines, to back it up or to move it to another backend
/// (a SQLite file to a shared PostgreSQL database): a header line, a line
/// per group, a line per user with their faces' descriptors (base64 of 128
/// little-endian float32).
public enum GalleryTransfer {
  public static let header = "workbench_gallery"

  /// Every group and user of `store`, as lines.
  public static func export(_ store: any GalleryStore) throws(GalleryError) -> [String] {
    var lines = [
      JSONValue.object(
        JSONObject([(header, .integer(1)), ("descriptor", .string(GalleryFormat.descriptorModel))])
      ).jsonText
    ]
    for group in try store.groups() {
      lines.append(
        JSONValue.object(
          JSONObject([("group", .object(JSONObject([("id", .string(group.id)), ("name", .string(group.name))])))])
        )
        .jsonText)
    }
    for user in try store.users(inGroup: nil) {
      var byFace: [Int64: FaceDescriptor] = [:]
      for stored in try store.descriptors(user: user.id, group: nil) { byFace[stored.faceID] = stored.descriptor }
      var faces: [JSONValue] = []
      for face in try store.faces(ofUser: user.id) {
        guard let descriptor = byFace[face.id] else { continue }
        var object = JSONObject([
          ("descriptor", .string(Data(descriptor.bytes).base64EncodedString())),
          ("sha256", .string(face.imageSHA256)), ("source", .string(face.source)),
        ])
        object["chip"] = try store.chip(ofFace: face.id).map { JSONValue.string(Data($0).base64EncodedString()) }
        faces.append(.object(object))
      }
      let record = JSONObject([
        ("id", .string(user.id)), ("name", .string(user.name)), ("details", .object(user.details)),
        ("groups", .array(user.groups.map { .string($0) })),
      ])
      lines.append(JSONValue.object(JSONObject([("user", .object(record)), ("faces", .array(faces))])).jsonText)
    }
    return lines
  }

  /// What an import did.
  public struct Imported: Sendable, Equatable {
    public var groups = 0
    public var users = 0
    public var faces = 0
    public var skipped = 0
  }

  /// Whether `lines` start as an export does: the first line that is not
  /// blank is the header, of this descriptor model. An empty file is not an export.
  public static func checkHeader(_ lines: some Sequence<Substring>, file: String) throws(GalleryFailure) {
    let help = "make one with 'workbench gallery export FILE'"
    guard let (index, line) = lines.enumerated().first(where: { !$0.element.allSatisfy(\.isWhitespace) }) else {
      throw GalleryFailure(.invalidImport, "\(file): the file is empty, not a gallery export", help: help)
    }
    let place = "\(file):\(index + 1)"
    guard let record = (try? JSONParser.parse(String(line)))?.objectValue, record[header]?.integerValue == 1 else {
      throw GalleryFailure(
        .invalidImport, "\(place): not a gallery export (its first line has no \"\(header)\": 1)", help: help)
    }
    guard record["descriptor"]?.stringValue == GalleryFormat.descriptorModel else {
      throw GalleryFailure(
        .invalidImport,
        "\(place): the faces were described by '\(record["descriptor"]?.stringValue ?? "?")', not \(GalleryFormat.descriptorModel)"
      )
    }
  }

  /// The strings of an array of strings only.
  private static func strings(_ value: JSONValue) -> [String]? {
    guard let array = value.arrayValue else { return nil }
    let strings = array.compactMap(\.stringValue)
    return strings.count == array.count ? strings : nil
  }

  /// A field of a user record, nil when absent; of another kind, an error at its line.
  private static func field<Value>(
    _ record: JSONObject, _ key: String, _ read: (JSONValue) -> Value?, _ kind: String, at place: String
  ) throws(GalleryFailure) -> Value? {
    guard let value = record[key], value != .null else { return nil }
    guard let read = read(value) else {
      throw GalleryFailure(.invalidImport, "\(place): the user's \(key) must be \(kind), not a JSON \(value.kindName)")
    }
    return read
  }

  /// Adds the groups and users of `lines` (as `export` writes them) to
  /// `store`, each in a transaction of its own: an import stopped half way
  /// keeps the users before the stop, each whole. Groups that exist are
  /// kept; users that exist are skipped when `skipExisting`, else an error.
  public static func `import`(
    _ lines: some Sequence<Substring>, into store: any GalleryStore, file: String, skipExisting: Bool
  ) throws(GalleryFailure) -> Imported {
    try checkHeader(lines, file: file)
    var imported = Imported()
    var existingGroups = Set(try GalleryFailure.run { () throws(GalleryError) in try store.groups() }.map(\.id))
    var seenHeader = false
    for (index, line) in lines.enumerated() where !line.allSatisfy(\.isWhitespace) {
      let place = "\(file):\(index + 1)"
      guard let record = (try? JSONParser.parse(String(line)))?.objectValue else {
        throw GalleryFailure(.invalidImport, "\(place): not a JSON object")
      }
      if !seenHeader {
        seenHeader = true
        continue
      }
      if let group = record["group"]?.objectValue, let id = group["id"]?.stringValue {
        guard !existingGroups.contains(id) else { continue }
        try GalleryFailure.run { () throws(GalleryError) in
          try store.createGroup(id, name: group["name"]?.stringValue ?? id)
        }
        existingGroups.insert(id)
        imported.groups += 1
      } else if let user = record["user"]?.objectValue, let id = user["id"]?.stringValue {
        var faces: [NewFace] = []
        for face in record["faces"]?.arrayValue ?? [] {
          guard let text = face["descriptor"]?.stringValue, let bytes = Data(base64Encoded: text),
            let descriptor = FaceDescriptor(bytes: bytes)
          else {
            throw GalleryFailure(.invalidImport, "\(place): a face of '\(id)' has no valid descriptor")
          }
          faces.append(
            NewFace(
              descriptor: descriptor, imageSHA256: face["sha256"]?.stringValue ?? "",
              source: face["source"]?.stringValue ?? "",
              chip: face["chip"]?.stringValue.flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) }))
        }
        let enrollment = Enrollment(
          user: GalleryUser(
            id: id, name: try field(user, "name", \.stringValue, "a string", at: place) ?? id,
            details: try field(user, "details", \.objectValue, "a JSON object", at: place) ?? JSONObject(),
            groups: try field(user, "groups", Self.strings, "a list of group ids", at: place) ?? []), faces: faces)
        do {
          _ = try store.enroll(enrollment)
          imported.users += 1
          imported.faces += faces.count
        } catch  where error.kind == .userExists && skipExisting {
          imported.skipped += 1
        } catch {
          var failure = GalleryFailure(error)
          failure.message = "\(place): \(failure.message)"
          throw failure
        }
      } else {
        throw GalleryFailure(.invalidImport, "\(place): neither a group nor a user")
      }
    }
    return imported
  }
}
