import Imaging

/// What a frame source delivers for one frame, before any decoding.
public enum FramePayload {
  /// A compressed JPEG image (MJPEG cameras, JPEG folders, AVI/MJPEG, MJPEG streams).
  case jpeg([UInt8])
  /// Raw pixels (YUYV or Y4M sources, already unpacked). The buffer may be
  /// reused by the source for the next frame: copy what you keep.
  case image(ImageBuffer)
  /// A frame that is known to be broken (a truncated chunk, a bad header);
  /// it is skipped and counted, never fatal.
  case unreadable(reason: String)
}

/// One frame from a camera or a recording.
public struct CapturedFrame {
  /// 0-based position in the source (gaps mean dropped frames).
  public var index: Int64
  /// Seconds on the source's clock: the camera's buffer timestamp, or the
  /// recording's frame rate, header or timestamps sidecar.
  public var t: Double
  public var payload: FramePayload

  public init(index: Int64, t: Double, payload: FramePayload) {
    self.index = index
    self.t = t
    self.payload = payload
  }
}

/// What is known about a source before its first frame.
public struct SourceInfo: Sendable, Equatable {
  /// "camera", "jpeg-folder", "mjpeg", "avi", "y4m".
  public var kind: String
  /// The device or file, as the user named it.
  public var name: String
  public var width: Int?
  public var height: Int?
  /// Frames per second, when the source says.
  public var fps: Double?
  /// Frames in the source when known (recordings).
  public var frameCount: Int?
  /// Free-form details worth recording (driver, card, pixel format...).
  public var details: [String: String]

  public init(
    kind: String, name: String, width: Int? = nil, height: Int? = nil, fps: Double? = nil, frameCount: Int? = nil,
    details: [String: String] = [:]
  ) {
    self.kind = kind
    self.name = name
    self.width = width
    self.height = height
    self.fps = fps
    self.frameCount = frameCount
    self.details = details
  }
}

/// A camera or a recording, read one frame at a time by one thread.
public protocol FrameSource: AnyObject {
  var info: SourceInfo { get }
  /// The next frame; nil at the end of a recording. Throws `CaptureError`
  /// when the source cannot go on (camera unplugged, unreadable file).
  func next() throws(CaptureError) -> CapturedFrame?
  /// Releases the device or file; safe to call twice.
  func close()
  /// Whether the run reads each frame at exactly half its width and height:
  /// a source that can make that copy as it delivers a frame, while the
  /// rows are in cache, gives it as the image's `halfSize`. A hint; sources
  /// that cannot ignore it.
  func preferHalfSize(_ wanted: Bool)
}

extension FrameSource {
  public func preferHalfSize(_ wanted: Bool) {}
}

/// Why a source could not be opened or read. Every case maps to exit code 4
/// and names the device or file and what to do.
public struct CaptureError: Error, Sendable, Equatable, CustomStringConvertible {
  public enum Kind: Sendable, Equatable {
    case noSuchDevice
    case notACaptureDevice
    case busy
    case permissionDenied
    case unsupportedFormat
    case disconnected
    case unreadableFile
    case invalidRecording
    case io
  }

  public var kind: Kind
  /// The device or file.
  public var source: String
  public var message: String
  /// What the user can do.
  public var help: String?

  public init(_ kind: Kind, source: String, _ message: String, help: String? = nil) {
    self.kind = kind
    self.source = source
    self.message = message
    self.help = help
  }

  public var description: String { "\(source): \(message)" + (help.map { " (\($0))" } ?? "") }
}
