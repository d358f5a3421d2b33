import JSONCore

/// Where a gallery lives: one SQLite file (`SQLiteGallery`) or a PostgreSQL
/// database that several machines share. Every change is one transaction:
/// a process killed in the middle leaves the gallery as it was before the
/// change or after it, never between. Calls block; one thread at a time.
public protocol GalleryStore: AnyObject {
  /// For messages: the file, or the URL without its password.
  var location: String { get }

  func createGroup(_ id: String, name: String) throws(GalleryError)
  /// Removes the group, not its users.
  func removeGroup(_ id: String) throws(GalleryError)
  func groups() throws(GalleryError) -> [GalleryGroup]

  /// A new user with their first faces, in `enrollment.user.groups` (which
  /// must exist).
  func enroll(_ enrollment: Enrollment) throws(GalleryError) -> [GalleryFace]
  /// Changes the name or the details (nil: unchanged), and adds the user to
  /// groups and takes them out of others.
  func editUser(
    _ id: String, name: String?, details: JSONObject?, joining: [String], leaving: [String]
  ) throws(GalleryError)
  /// Removes the user and their faces.
  func removeUser(_ id: String) throws(GalleryError)
  func user(_ id: String) throws(GalleryError) -> GalleryUser
  /// Every user, or those of a group, by id.
  func users(inGroup group: String?) throws(GalleryError) -> [GalleryUser]

  func addFaces(_ faces: [NewFace], toUser user: String) throws(GalleryError) -> [GalleryFace]
  func removeFace(_ id: Int64) throws(GalleryError)
  func faces(ofUser user: String) throws(GalleryError) -> [GalleryFace]
  /// The aligned face (JPEG) kept with a face, nil when it has none.
  func chip(ofFace id: Int64) throws(GalleryError) -> [UInt8]?

  /// The descriptors to search: of one user, of a group's users, or all;
  /// with `after`, only faces whose id is above it, in id order.
  func descriptors(user: String?, group: String?, after faceID: Int64?) throws(GalleryError) -> [StoredDescriptor]
  /// How many faces a search of the group (every user when nil) reads.
  func faceCount(group: String?) throws(GalleryError) -> Int
  /// A number that changes whenever a face may have left a search (a face,
  /// a user or a group removed, a user's groups changed), by any process:
  /// while it stays the same, an index needs only the faces added since.
  func removals() throws(GalleryError) -> Int64
  /// A number that changes with every change to the gallery, by any
  /// process: a search index is current while it stays the same.
  func revision() throws(GalleryError) -> Int64
}

extension GalleryStore {
  public func descriptors(user: String?, group: String?) throws(GalleryError) -> [StoredDescriptor] {
    try descriptors(user: user, group: group, after: nil)
  }
}
