/// What went wrong while describing faces; `help` says what to do.
public struct FaceRecognitionError: Error, Sendable, Equatable, CustomStringConvertible {
  public enum Kind: Sendable, Equatable {
    /// A model file is missing or does not load.
    case modelUnavailable
    /// The image has no face.
    case noFace
    /// The image has more than one face, and one was asked for.
    case severalFaces
    /// The image cannot be read or decoded.
    case unreadableImage
    /// The network or the shape model failed on a face.
    case describeFailed
  }

  public var kind: Kind
  public var message: String
  public var help: String?
  /// The file the error is about, when there is one.
  public var file: String?

  public init(_ kind: Kind, _ message: String, help: String? = nil, file: String? = nil) {
    self.kind = kind
    self.message = message
    self.help = help
    self.file = file
  }

  public var description: String { file.map { "\($0): \(message)" } ?? message }
}

extension FaceRecognitionError {
  /// The message the C shim wrote into `buffer`, up to its terminating zero.
  static func text(_ buffer: [CChar]) -> String {
    let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
  }
}
