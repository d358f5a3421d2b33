#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Why an `AtomicFile` could not be written: the step that failed and its
/// errno. Each caller words the message for its own user.
public struct AtomicFileError: Error, Sendable, Equatable {
  public enum Step: Sendable, Equatable {
    /// The temporary file could not be made.
    case create
    /// Writing, syncing or closing the temporary file failed.
    case write
    /// The whole file could not be moved to its path.
    case move
  }

  public let step: Step
  public let code: Int32

  public init(_ step: Step, code: Int32) {
    self.step = step
    self.code = code
  }

  /// The system's words for `code` ("No space left on device").
  public var reason: String { String(cString: strerror(code)) }

  /// The path already had a file that a commit not replacing it kept.
  public var isExistingFile: Bool { step == .move && code == EEXIST }
}
