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

  /// Adds the groups and users of `lines` (as `export` writes them) to
  /// `store`, each in a transaction of its own: an import stopped half way
  /// keeps the users before the stop, each whole. Groups that exist are
  /// kept; users that exist are skipped when `skipExisting`, else an error.
  public static func `import`(
    _ lines: some Sequence<Substring>, into store: any GalleryStore, file: String, skipExisting: Bool
  ) throws(GalleryFailure) -> Imported {
    var imported = Imported()
    var existingGroups = Set(try GalleryFailure.run { () throws(GalleryError) in try store.groups() }.map(\.id))
    for (index, line) in lines.enumerated() where !line.allSatisfy(\.isWhitespace) {
      let place = "\(file):\(index + 1)"
      guard let record = (try? JSONParser.parse(String(line)))?.objectValue else {
        throw GalleryFailure(.invalidImport, "\(place): not a JSON object")
      }
      if index == 0 {
        guard record[header]?.integerValue == 1 else {
          throw GalleryFailure(
            .invalidImport, "\(place): not a gallery export (its first line has no \"\(header)\": 1)",
            help: "make one with 'workbench gallery export FILE'")
        }
        guard record["descriptor"]?.stringValue == GalleryFormat.descriptorModel else {
          throw GalleryFailure(
            .invalidImport,
            "\(place): the faces were described by '\(record["descriptor"]?.stringValue ?? "?")', not \(GalleryFormat.descriptorModel)"
          )
        }
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
            id: id, name: user["name"]?.stringValue ?? id, details: user["details"]?.objectValue ?? JSONObject(),
            groups: (user["groups"]?.arrayValue ?? []).compactMap(\.stringValue)), faces: faces)
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
