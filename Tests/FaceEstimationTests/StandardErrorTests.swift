import FaceEstimation
import Foundation
import Testing

@Suite("stderr redirection")
struct StandardErrorTests {
  /// The file fd 2 points at, as (device, inode), read while no other
  /// thread redirects it (a face test starting a landmarker may be): with
  /// no descriptor to redirect to, the call only takes the lock.
  static func standardErrorIdentity() -> (UInt64, UInt64) {
    withStandardError(redirectedTo: -1) {
      var information = stat()
      fstat(2, &information)
      return (UInt64(information.st_dev), UInt64(information.st_ino))
    }
  }

  @Test("redirections from many threads at once leave stderr where it was")
  func overlappingRedirections() async {
    let before = Self.standardErrorIdentity()
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<4 {
        group.addTask {
          let null = open("/dev/null", O_WRONLY)
          defer { close(null) }
          for _ in 0..<200 {
            withStandardError(redirectedTo: null) {
              // Nested, as the face backend's silencing nests in a caller's.
              withStandardError(redirectedTo: null) { usleep(10) }
            }
          }
        }
      }
    }
    let after = Self.standardErrorIdentity()
    #expect(after == before)
  }
}
