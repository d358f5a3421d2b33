import FaceRecognition

/// One candidate of a search: a user, their nearest face, its distance.
public struct FaceCandidate: Sendable, Equatable {
  public var userID: String
  public var faceID: Int64
  public var distance: Float
}

/// The descriptors of a gallery (or of a group) packed in one array, for
/// 1:N search by a linear scan: 128 floats a face, read in 16-wide SIMD
/// steps. Loaded once; when the gallery's revision moves on, the faces
/// added since are appended, and it is loaded whole again only when a face
/// may have left it (the gallery's removals moved on too).
public final class FaceIndex {
  public private(set) var revision: Int64
  /// The gallery's removals when it was loaded whole.
  public private(set) var removals: Int64 = 0
  /// The highest face id it holds: faces added later have higher ones.
  public private(set) var lastFaceID: Int64 = .min
  public private(set) var count = 0
  /// Times it was loaded whole, and times faces were appended since the last.
  public private(set) var wholeLoads = 0
  public private(set) var appends = 0
  private var ordinalOfUser: [String: Int32] = [:]
  private var packed: [Float] = []
  private var faceIDs: [Int64] = []
  /// Per face, the position of its user in `userIDs`.
  private var userOrdinals: [Int32] = []
  private var userIDs: [String] = []
  /// Per user, the nearest distance (squared) of the search under way.
  private var nearest: [Float] = []
  private var nearestFace: [Int32] = []

  public init(_ descriptors: [StoredDescriptor], revision: Int64, removals: Int64 = 0) {
    self.revision = revision
    load(descriptors, revision: revision, removals: removals)
  }

  public func load(_ descriptors: [StoredDescriptor], revision: Int64, removals: Int64 = 0) {
    wholeLoads += 1
    count = 0
    packed = []
    faceIDs = []
    userOrdinals = []
    userIDs = []
    ordinalOfUser = [:]
    lastFaceID = .min
    self.removals = removals
    append(descriptors, revision: revision)
    appends = 0
  }

  /// Adds faces added to the gallery since it was loaded.
  public func append(_ descriptors: [StoredDescriptor], revision: Int64) {
    appends += 1
    self.revision = revision
    count += descriptors.count
    packed.reserveCapacity(count * FaceDescriptor.length)
    faceIDs.reserveCapacity(count)
    userOrdinals.reserveCapacity(count)
    for stored in descriptors {
      packed.append(contentsOf: stored.descriptor.values)
      faceIDs.append(stored.faceID)
      lastFaceID = max(lastFaceID, stored.faceID)
      if let ordinal = ordinalOfUser[stored.userID] {
        userOrdinals.append(ordinal)
      } else {
        let ordinal = Int32(userIDs.count)
        ordinalOfUser[stored.userID] = ordinal
        userIDs.append(stored.userID)
        userOrdinals.append(ordinal)
      }
    }
    nearest = [Float](repeating: .infinity, count: userIDs.count)
    nearestFace = [Int32](repeating: -1, count: userIDs.count)
  }

  /// The `top` users nearest to `query`, each by their nearest face,
  /// nearest first.
  public func search(_ query: FaceDescriptor, top: Int) -> [FaceCandidate] {
    guard count > 0, top > 0 else { return [] }
    for index in nearest.indices {
      nearest[index] = .infinity
      nearestFace[index] = -1
    }
    let chunks = FaceDescriptor.length / 16
    var queryChunks = [SIMD16<Float>](repeating: .zero, count: chunks)
    for chunk in 0..<chunks {
      for lane in 0..<16 { queryChunks[chunk][lane] = query.values[chunk * 16 + lane] }
    }
    packed.withUnsafeBufferPointer { faces in
      queryChunks.withUnsafeBufferPointer { queryChunks in
        let base = UnsafeRawPointer(faces.baseAddress!)
        let stride = FaceDescriptor.length * MemoryLayout<Float>.stride
        for face in 0..<count {
          let row = base + face * stride
          var sum = SIMD16<Float>.zero
          for chunk in 0..<chunks {
            let difference = row.loadUnaligned(fromByteOffset: chunk * 64, as: SIMD16<Float>.self) - queryChunks[chunk]
            sum += difference * difference
          }
          let squared = sum.sum()
          let user = Int(userOrdinals[face])
          if squared < nearest[user] {
            nearest[user] = squared
            nearestFace[user] = Int32(face)
          }
        }
      }
    }
    // The `top` smallest of the users' nearest distances.
    var chosen: [(user: Int, squared: Float)] = []
    chosen.reserveCapacity(top + 1)
    for user in nearest.indices where nearestFace[user] >= 0 {
      let squared = nearest[user]
      if chosen.count == top, let last = chosen.last, squared >= last.squared { continue }
      let position = chosen.firstIndex { squared < $0.squared } ?? chosen.count
      chosen.insert((user, squared), at: position)
      if chosen.count > top { chosen.removeLast() }
    }
    return chosen.map {
      FaceCandidate(
        userID: userIDs[$0.user], faceID: faceIDs[Int(nearestFace[$0.user])], distance: $0.squared.squareRoot())
    }
  }
}
