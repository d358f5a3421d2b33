import FaceRecognition
import Foundation

/// A gallery and its searches: 1:1 verification against a user, 1:N
/// identification in a group, with the match threshold. The search index
/// of each group is built on first use and rebuilt when the gallery has
/// changed since (by this process or another).
public final class Gallery {
  /// dlib's usual threshold: same person under 0.6.
  public static let defaultThreshold: Float = 0.6

  public let store: any GalleryStore
  public var threshold: Float
  private var indexes: [String: FaceIndex] = [:]

  public init(store: any GalleryStore, threshold: Float = Gallery.defaultThreshold) {
    self.store = store
    self.threshold = threshold
  }

  /// The gallery at `location`: a SQLite file, or a postgres:// URL (the
  /// tables are made in that database when it has none; `create` is for files).
  /// `readOnly` for the commands that only read (a read-only file is read).
  public static func open(
    _ location: String, create: Bool = true, readOnly: Bool = false, threshold: Float = Gallery.defaultThreshold
  ) throws(GalleryError) -> Gallery {
    if location.hasPrefix("postgres://") || location.hasPrefix("postgresql://") {
      return Gallery(store: try PostgresGallery(url: location), threshold: threshold)
    }
    return Gallery(
      store: try SQLiteGallery(path: location, create: create, readOnly: readOnly), threshold: threshold)
  }

  /// The result of comparing a face with a user's faces: the nearest one decides.
  public struct Verification: Sendable, Equatable {
    public var userID: String
    public var faceID: Int64
    public var distance: Float
    public var threshold: Float
    public var isMatch: Bool { FaceMatch(distance: distance, threshold: threshold).isMatch }
  }

  public func verify(_ descriptor: FaceDescriptor, user: String) throws(GalleryError) -> Verification {
    let faces = try store.descriptors(user: user, group: nil)
    guard let nearest = FaceIndex(faces, revision: 0).search(descriptor, top: 1).first else {
      throw GalleryError(
        .faceNotFound, "the user '\(user)' has no faces",
        help: "add one with 'workbench gallery face add --user \(user) IMAGE'")
    }
    return Verification(userID: user, faceID: nearest.faceID, distance: nearest.distance, threshold: threshold)
  }

  /// The `top` nearest users of `group` (every user when nil), nearest
  /// first, whether or not they match.
  public func identify(_ descriptor: FaceDescriptor, group: String?, top: Int) throws(GalleryError) -> [FaceCandidate] {
    try index(group: group).search(descriptor, top: top)
  }

  /// The search index of a group, current with the gallery: the faces
  /// added since it was made are appended (at a million faces, loading it
  /// whole reads about 512 MB again); it is loaded whole when a face may have
  /// left it, or when the faces it would hold are not the ones counted (a
  /// user who joined the group brings faces older than the index's last).
  public func index(group: String?) throws(GalleryError) -> FaceIndex {
    let revision = try store.revision()
    let key = group ?? ""
    if let index = indexes[key] {
      if index.revision == revision { return index }
      let removals = try store.removals()
      if removals == index.removals {
        let added = try store.descriptors(user: nil, group: group, after: index.lastFaceID)
        if index.count + added.count == (try store.faceCount(group: group)) {
          index.append(added, revision: revision)
          return index
        }
      }
    }
    // Read before the faces: a removal while they are read shows next time.
    let removals = try store.removals()
    let descriptors = try store.descriptors(user: nil, group: group)
    if let index = indexes[key] {
      index.load(descriptors, revision: revision, removals: removals)
      return index
    }
    let index = FaceIndex(descriptors, revision: revision, removals: removals)
    indexes[key] = index
    return index
  }
}
