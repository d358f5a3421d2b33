import FaceRecognition
import JSONCore

/// A person in the gallery: an id the integrator chooses, a display name,
/// free-form details (a JSON object), the groups they are in.
public struct GalleryUser: Sendable, Equatable {
  public var id: String
  public var name: String
  public var details: JSONObject
  public var groups: [String]
  public var faceCount: Int
  /// Seconds since 1970.
  public var createdAt: Double

  public init(
    id: String, name: String, details: JSONObject = JSONObject(), groups: [String] = [], faceCount: Int = 0,
    createdAt: Double = 0
  ) {
    self.id = id
    self.name = name
    self.details = details
    self.groups = groups
    self.faceCount = faceCount
    self.createdAt = createdAt
  }
}

/// A set of users that identification searches (1:N): a site, a kiosk's
/// staff, a test population.
public struct GalleryGroup: Sendable, Equatable {
  public var id: String
  public var name: String
  public var userCount: Int

  public init(id: String, name: String, userCount: Int) {
    self.id = id
    self.name = name
    self.userCount = userCount
  }
}

/// One enrolled face: its descriptor lives with it, and where it came from.
public struct GalleryFace: Sendable, Equatable {
  public var id: Int64
  public var userID: String
  /// SHA-256 of the image the descriptor was computed from, hex.
  public var imageSHA256: String
  /// Where the image came from (a file name, "flow:enroll"), free-form.
  public var source: String
  /// Seconds since 1970.
  public var addedAt: Double
}

/// A face to add: the descriptor and its image's provenance.
public struct NewFace: Sendable {
  public var descriptor: FaceDescriptor
  public var imageSHA256: String
  public var source: String
  /// The aligned face the descriptor was computed from (JPEG, 150 × 150),
  /// kept to show beside a later match; nil when there is none.
  public var chip: [UInt8]?

  public init(descriptor: FaceDescriptor, imageSHA256: String, source: String, chip: [UInt8]? = nil) {
    self.descriptor = descriptor
    self.imageSHA256 = imageSHA256
    self.source = source
    self.chip = chip
  }
}

/// A descriptor as the search index loads it.
public struct StoredDescriptor: Sendable {
  public var faceID: Int64
  public var userID: String
  public var descriptor: FaceDescriptor

  public init(faceID: Int64, userID: String, descriptor: FaceDescriptor) {
    self.faceID = faceID
    self.userID = userID
    self.descriptor = descriptor
  }
}

/// A new user with their first faces (HyperSecure's REGISTER).
public struct Enrollment: Sendable {
  public var user: GalleryUser
  public var faces: [NewFace]

  public init(user: GalleryUser, faces: [NewFace]) {
    self.user = user
    self.faces = faces
  }
}

/// What can go wrong with a gallery, by name: the names are the `error`
/// field of `workbench gallery`'s output and of the flows' results
/// (docs/gallery.md lists them with their exit codes).
public struct GalleryError: Error, Sendable, Equatable, CustomStringConvertible {
  public enum Kind: String, Sendable, CaseIterable {
    case userNotFound = "user_not_found"
    case userExists = "user_exists"
    case groupNotFound = "group_not_found"
    case groupExists = "group_exists"
    case faceNotFound = "face_not_found"
    /// An id or name that is empty, too long, or has control characters.
    case invalidName = "invalid_name"
    /// More faces than one enrollment may bring.
    case tooManyFaces = "too_many_faces"
    /// The gallery cannot be opened, read or written.
    case unavailable = "gallery_unavailable"
  }

  public var kind: Kind
  public var message: String
  public var help: String?

  public init(_ kind: Kind, _ message: String, help: String? = nil) {
    self.kind = kind
    self.message = message
    self.help = help
  }

  public var description: String { message }
}

/// Ids of users and groups: 1 to 128 characters, none of them control
/// characters, and not only spaces. Display names: at most 256 characters,
/// no control characters. A user's details: at most 16 KiB as JSON.
public enum GalleryNames {
  public static let maximumLength = 128
  public static let maximumDisplayNameLength = 256
  public static let maximumDetailsBytes = 16 * 1024
  /// HyperSecure takes at most 5 images per enrollment.
  public static let maximumFacesPerEnrollment = 5

  public static func check(_ value: String, as what: String) throws(GalleryError) {
    guard !value.trimmingCharacters(in: .whitespaces).isEmpty else {
      throw GalleryError(.invalidName, "the \(what) is empty", help: "give a \(what) such as \"alice\"")
    }
    guard value.count <= maximumLength else {
      throw GalleryError(.invalidName, "the \(what) is \(value.count) characters, more than \(maximumLength)")
    }
    guard !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
      throw GalleryError(.invalidName, "the \(what) '\(value.debugDescription)' has control characters")
    }
  }

  /// A user's or group's display name (`--name`).
  public static func checkDisplayName(_ value: String, of what: String) throws(GalleryError) {
    guard value.count <= maximumDisplayNameLength else {
      throw GalleryError(
        .invalidName, "the \(what)'s name is \(value.count) characters, more than \(maximumDisplayNameLength)")
    }
    guard !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
      throw GalleryError(.invalidName, "the \(what)'s name \(value.debugDescription) has control characters")
    }
  }

  /// Everything about a new user but their faces: id, name, details, groups.
  public static func check(_ user: GalleryUser) throws(GalleryError) {
    try check(user.id, as: "user id")
    try checkEdit(name: user.name, details: user.details)
    for group in user.groups { try check(group, as: "group id") }
  }

  /// A user's new name and details, either of which may stay as it is (nil).
  public static func checkEdit(name: String?, details: JSONObject?) throws(GalleryError) {
    if let name { try checkDisplayName(name, of: "user") }
    guard let details else { return }
    let size = JSONValue.object(details).jsonText.utf8.count
    guard size <= maximumDetailsBytes else {
      throw GalleryError(
        .invalidName, "the user's details are \(size) bytes of JSON, more than \(maximumDetailsBytes)",
        help: "keep large records elsewhere and put their key in the details")
    }
  }

  /// A new group's id and name.
  public static func checkGroup(_ id: String, name: String) throws(GalleryError) {
    try check(id, as: "group id")
    try checkDisplayName(name, of: "group")
  }
}
