import Crypto
import Diagnostics
import FaceRecognition
import Foundation
import Imaging
import JSONCore

/// The gallery's operations on photos, as `workbench gallery` offers them:
/// each photo must show one face, which is described and enrolled,
/// verified or searched. Answers are JSON objects; failures are
/// `GalleryFailure`s with a name and an exit code.
public final class PhotoGallery {
  private let opened: Gallery?
  private let faces: StillFaces
  public let threshold: Float

  /// `gallery` may be nil for `match`, which reads none.
  public init(gallery: Gallery?, faces: StillFaces, threshold: Float = Gallery.defaultThreshold) {
    opened = gallery
    self.faces = faces
    self.threshold = gallery?.threshold ?? threshold
  }

  private var gallery: Gallery {
    get throws(GalleryFailure) {
      guard let opened else { throw GalleryFailure(.galleryUnavailable, "no gallery is open") }
      return opened
    }
  }

  /// A new user with one to 5 photos (HyperSecure's REGISTER).
  public func enroll(_ user: GalleryUser, images: [String]) throws(GalleryFailure) -> JSONObject {
    let described = try describe(images)
    let store = try self.gallery.store
    let added = try GalleryFailure.run { () throws(GalleryError) in
      try store.enroll(Enrollment(user: user, faces: described))
    }
    return JSONObject([
      ("user", .string(user.id)), ("groups", .array(user.groups.map { .string($0) })),
      ("faces", Self.facesValue(added)),
    ])
  }

  /// More photos of an existing user (FACE_ADD).
  public func addFaces(user: String, images: [String]) throws(GalleryFailure) -> JSONObject {
    let described = try describe(images)
    let store = try self.gallery.store
    let added = try GalleryFailure.run { () throws(GalleryError) in try store.addFaces(described, toUser: user) }
    return JSONObject([("user", .string(user)), ("faces", Self.facesValue(added))])
  }

  /// 1:1 (VERIFICATION): is the person in the photo this user?
  public func verify(user: String, image: String) throws(GalleryFailure) -> (JSONObject, match: Bool) {
    let gallery = try self.gallery
    // An unknown user is said before the photo is described (about 15 ms and the face search).
    _ = try GalleryFailure.run { () throws(GalleryError) in try gallery.store.user(user) }
    let face = try describe(image)
    let result = try GalleryFailure.run { () throws(GalleryError) in try gallery.verify(face.descriptor, user: user) }
    return (
      JSONObject([
        ("user", .string(user)), ("image", .string(image)), ("distance", Self.rounded(result.distance)),
        ("threshold", Self.rounded(result.threshold)), ("match", .bool(result.isMatch)),
        ("face", .integer(result.faceID)),
      ]), result.isMatch
    )
  }

  /// 1:N (RECOGNITION): who in the group is the person in the photo?
  public func identify(group: String?, image: String, top: Int) throws(GalleryFailure) -> (JSONObject, match: Bool) {
    let face = try describe(image)
    let gallery = try self.gallery
    let candidates = try GalleryFailure.run { () throws(GalleryError) in
      try gallery.identify(face.descriptor, group: group, top: top)
    }
    let best = candidates.first.flatMap { FaceMatch(distance: $0.distance, threshold: threshold).isMatch ? $0 : nil }
    var result = JSONObject([("image", .string(image))])
    result["group"] = group.map { JSONValue.string($0) }
    result["threshold"] = Self.rounded(threshold)
    result["match"] = .bool(best != nil)
    result["user"] = best.map { JSONValue.string($0.userID) } ?? .null
    result["candidates"] = .array(
      candidates.map {
        .object(
          JSONObject([
            ("user", .string($0.userID)), ("face", .integer($0.faceID)), ("distance", Self.rounded($0.distance)),
            ("match", .bool(FaceMatch(distance: $0.distance, threshold: threshold).isMatch)),
          ]))
      })
    return (result, best != nil)
  }

  /// Two photos: the same person or not? (No gallery is read.)
  public func match(_ first: String, _ second: String) throws(GalleryFailure) -> (JSONObject, match: Bool) {
    let a = try describe(first)
    let b = try describe(second)
    let result = FaceMatch(distance: a.descriptor.distance(to: b.descriptor), threshold: threshold)
    return (
      JSONObject([
        ("images", .array([.string(first), .string(second)])), ("distance", Self.rounded(result.distance)),
        ("threshold", Self.rounded(result.threshold)), ("match", .bool(result.isMatch)),
      ]), result.isMatch
    )
  }

  private func describe(_ images: [String]) throws(GalleryFailure) -> [NewFace] {
    guard !images.isEmpty else {
      throw GalleryFailure(.missingImage, "no image given", help: "give one to 5 photos of the person's face")
    }
    var described: [NewFace] = []
    for image in images {
      let face = try describe(image)
      described.append(NewFace(descriptor: face.descriptor, imageSHA256: face.sha256, source: image, chip: face.chip))
    }
    return described
  }

  private func describe(_ image: String) throws(GalleryFailure) -> (
    descriptor: FaceDescriptor, sha256: String, chip: [UInt8]?
  ) {
    do {
      let face = try faces.describeSingleFace(at: image)
      let bytes = FileManager.default.contents(atPath: image) ?? Data()
      let sha256 = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
      return (face.descriptor, sha256, face.chip)
    } catch {
      throw GalleryFailure(error)
    }
  }

  static func facesValue(_ faces: [GalleryFace]) -> JSONValue {
    .array(
      faces.map {
        .object(
          JSONObject([("id", .integer($0.id)), ("source", .string($0.source)), ("sha256", .string($0.imageSHA256))]))
      })
  }

  /// Distances to 4 decimals: more is noise.
  static func rounded(_ value: Float) -> JSONValue { .number((Double(value) * 10_000).rounded() / 10_000) }
}

/// Why a gallery command could not answer, by name (HyperSecure's input
/// errors and the gallery's own), with the exit code docs/exit-codes.md
/// gives it.
public struct GalleryFailure: Error, Sendable, CustomStringConvertible {
  public enum Name: String, Sendable, CaseIterable {
    case userNotFound = "user_not_found"
    case userExists = "user_exists"
    case groupNotFound = "group_not_found"
    case groupExists = "group_exists"
    case faceNotFound = "face_not_found"
    case invalidName = "invalid_name"
    case tooManyFaces = "too_many_faces"
    case galleryUnavailable = "gallery_unavailable"
    case missingImage = "missing_image"
    case invalidImagePath = "invalid_image_path"
    case invalidImage = "invalid_image"
    case noFace = "no_face"
    case severalFaces = "several_faces"
    case modelUnavailable = "model_unavailable"
    /// A line of `gallery import`'s file that is not what `export` writes.
    case invalidImport = "invalid_import"

    public var status: ExitStatus {
      switch self {
      case .userNotFound, .userExists, .groupNotFound, .groupExists, .faceNotFound, .galleryUnavailable:
        return .gallery
      case .invalidName, .tooManyFaces, .missingImage, .modelUnavailable, .invalidImport: return .usage
      case .invalidImagePath, .invalidImage, .noFace, .severalFaces: return .input
      }
    }
  }

  public var name: Name
  public var message: String
  public var help: String?
  public var file: String?

  public init(_ name: Name, _ message: String, help: String? = nil, file: String? = nil) {
    self.name = name
    self.message = message
    self.help = help
    self.file = file
  }

  /// Makes the folder of the user's own gallery (`$XDG_DATA_HOME/workbench`)
  /// on its first use; `otherwise` says how to name another gallery.
  public static func makeFolder(of location: String, otherwise: String) throws(GalleryFailure) {
    let folder = (location as NSString).deletingLastPathComponent
    do {
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    } catch {
      throw GalleryFailure(
        .galleryUnavailable, "cannot make the gallery's folder \(folder): \(error.localizedDescription)",
        help: "\(otherwise), or set XDG_DATA_HOME to a folder you can write")
    }
  }

  public init(_ error: GalleryError) {
    self.init(Name(rawValue: error.kind.rawValue) ?? .galleryUnavailable, error.message, help: error.help)
  }

  public init(_ error: FaceRecognitionError) {
    let name: Name
    switch error.kind {
    case .modelUnavailable: name = .modelUnavailable
    case .noFace: name = .noFace
    case .severalFaces: name = .severalFaces
    case .unreadableImage:
      let exists = error.file.map { FileManager.default.fileExists(atPath: $0) } ?? true
      name = exists ? .invalidImage : .invalidImagePath
    case .describeFailed: name = .invalidImage
    }
    self.init(name, error.message, help: error.help, file: error.file)
  }

  /// Runs a store operation, its `GalleryError` as a failure.
  public static func run<T>(_ body: () throws(GalleryError) -> T) throws(GalleryFailure) -> T {
    do { return try body() } catch { throw GalleryFailure(error) }
  }

  public var description: String { file.map { "\($0): \(message)" } ?? message }

  /// For the command's standard output: the name and the message.
  public var json: JSONObject {
    var object = JSONObject([("error", .string(name.rawValue)), ("message", .string(message))])
    object["file"] = file.map { JSONValue.string($0) }
    return object
  }

  public var workbenchError: WorkbenchError {
    WorkbenchError(name.status, message, at: file.map { SourceLocation(file: $0) }, help: help)
  }
}

/// The gallery's records as the commands print them.
public enum GalleryJSON {
  public static func user(_ user: GalleryUser, faces: [GalleryFace]? = nil) -> JSONValue {
    var object = JSONObject([
      ("id", .string(user.id)), ("name", .string(user.name)), ("details", .object(user.details)),
      ("groups", .array(user.groups.map { .string($0) })), ("face_count", .integer(Int64(user.faceCount))),
      ("created_at", .number(user.createdAt.rounded())),
    ])
    if let faces {
      object["faces"] = .array(
        faces.map {
          .object(
            JSONObject([
              ("id", .integer($0.id)), ("source", .string($0.source)), ("sha256", .string($0.imageSHA256)),
              ("added_at", .number($0.addedAt.rounded())),
            ]))
        })
    }
    return .object(object)
  }

  public static func group(_ group: GalleryGroup) -> JSONValue {
    .object(
      JSONObject([
        ("id", .string(group.id)), ("name", .string(group.name)), ("user_count", .integer(Int64(group.userCount))),
      ]))
  }
}
