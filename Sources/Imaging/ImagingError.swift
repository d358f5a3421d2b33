/// Why an image could not be decoded, encoded or converted. Broken input is
/// always reported this way, never by crashing, so a frame source can count
/// an unreadable frame and go on with the next one.
public struct ImagingError: Error, Sendable, Equatable, CustomStringConvertible {
  public enum Kind: Sendable, Equatable, CustomStringConvertible {
    /// The data is not a valid image: not a JPEG at all, or damaged inside.
    case corrupt
    /// The data ends before the image does (a partly received frame), or is empty.
    case truncated
    /// A valid image this build cannot handle: 12-bit JPEG, CMYK to RGB,
    /// larger than the decoder's limit, a pixel format an operation does not take.
    case unsupported
    /// The caller asked for something impossible (quality 0, negative size,
    /// a buffer used as its own destination).
    case invalidArgument
    /// TurboJPEG itself failed (out of memory, could not create a handle).
    case libraryFailure

    public var description: String {
      switch self {
      case .corrupt: return "corrupt"
      case .truncated: return "truncated"
      case .unsupported: return "unsupported"
      case .invalidArgument: return "invalid argument"
      case .libraryFailure: return "library failure"
      }
    }
  }

  public var kind: Kind
  public var message: String

  public init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }

  public var description: String { message }
}
