import Foundation

/// The few Video4Linux2 operations the camera code needs, as Swift values.
///
/// This is the seam between the camera logic (format negotiation, streaming,
/// error reporting) and the kernel: `LibV4L2Device` talks to libv4l2, and a
/// scripted test double stands in for a camera where there is none. Failures
/// are `V4L2Error`s carrying the errno; the only raw memory that crosses the
/// seam is a mapped buffer.
public protocol V4L2Device: AnyObject {
  /// Opens the device node for reading and writing, without blocking.
  func open(path: String) throws(V4L2Error) -> V4L2Handle
  /// Releases the handle. Errors are ignored: there is nothing left to do.
  func close(_ handle: V4L2Handle)

  /// VIDIOC_QUERYCAP.
  func queryCapabilities(_ handle: V4L2Handle) throws(V4L2Error) -> V4L2Capabilities
  /// VIDIOC_ENUM_FMT for video capture, every index.
  func formats(_ handle: V4L2Handle) throws(V4L2Error) -> [V4L2FormatDescription]
  /// VIDIOC_ENUM_FRAMESIZES; `.discrete([])` when the driver lists none.
  func frameSizes(_ handle: V4L2Handle, pixelFormat: V4L2FourCC) throws(V4L2Error) -> V4L2FrameSizes
  /// VIDIOC_ENUM_FRAMEINTERVALS; `.discrete([])` when the driver lists none.
  func frameIntervals(_ handle: V4L2Handle, pixelFormat: V4L2FourCC, size: V4L2Size) throws(V4L2Error)
    -> V4L2FrameIntervals

  /// VIDIOC_S_FMT: asks for a format and returns what the driver chose.
  func setFormat(_ handle: V4L2Handle, _ format: V4L2Format) throws(V4L2Error) -> V4L2Format
  /// VIDIOC_G_FMT.
  func getFormat(_ handle: V4L2Handle) throws(V4L2Error) -> V4L2Format
  /// VIDIOC_S_PARM: asks for a time per frame and returns what the driver chose.
  func setStreamParameters(_ handle: V4L2Handle, timePerFrame: V4L2Fraction) throws(V4L2Error)
    -> V4L2StreamParameters
  /// VIDIOC_G_PARM.
  func getStreamParameters(_ handle: V4L2Handle) throws(V4L2Error) -> V4L2StreamParameters

  /// VIDIOC_REQBUFS with memory-mapped buffers; returns how many the driver granted.
  func requestBuffers(_ handle: V4L2Handle, count: Int) throws(V4L2Error) -> Int
  /// VIDIOC_QUERYBUF: where buffer `index` lives, for mapping it.
  func queryBuffer(_ handle: V4L2Handle, index: Int) throws(V4L2Error) -> V4L2BufferLocation
  /// Maps a buffer into memory. It stays valid until `unmap`.
  func map(_ handle: V4L2Handle, _ location: V4L2BufferLocation) throws(V4L2Error) -> UnsafeMutableRawBufferPointer
  func unmap(_ memory: UnsafeMutableRawBufferPointer)

  /// VIDIOC_QBUF: hands buffer `index` back to the driver to fill.
  func queueBuffer(_ handle: V4L2Handle, index: Int) throws(V4L2Error)
  /// VIDIOC_DQBUF: takes a filled buffer; EAGAIN when none is ready yet.
  func dequeueBuffer(_ handle: V4L2Handle) throws(V4L2Error) -> V4L2DequeuedBuffer
  /// VIDIOC_STREAMON.
  func startStreaming(_ handle: V4L2Handle) throws(V4L2Error)
  /// VIDIOC_STREAMOFF: also takes every buffer back from the driver.
  func stopStreaming(_ handle: V4L2Handle) throws(V4L2Error)
  /// Waits up to the timeout for a buffer to dequeue; false on timeout.
  func waitForFrame(_ handle: V4L2Handle, timeoutMilliseconds: Int) throws(V4L2Error) -> Bool
}

/// An open device node.
public struct V4L2Handle: Hashable, Sendable {
  public var fileDescriptor: Int32
  public init(fileDescriptor: Int32) { self.fileDescriptor = fileDescriptor }
}

/// A failed V4L2 call: which one, and the errno it set.
public struct V4L2Error: Error, Sendable, Equatable, CustomStringConvertible {
  /// The call, such as "open" or "VIDIOC_S_FMT".
  public var operation: String
  /// The errno value (ENOENT, EBUSY, ENODEV...).
  public var code: Int32

  public init(_ operation: String, code: Int32) {
    self.operation = operation
    self.code = code
  }

  public var description: String { "\(operation): \(V4L2Error.explanation(of: code))" }

  /// The C library's text for an errno value ("Device or resource busy").
  public static func explanation(of code: Int32) -> String {
    guard let text = strerror(code) else { return "errno \(code)" }
    return String(cString: text)
  }
}

/// A four-character code that names a pixel format (V4L2_PIX_FMT_*).
public struct V4L2FourCC: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public var rawValue: UInt32
  public init(rawValue: UInt32) { self.rawValue = rawValue }

  /// From its four characters, such as "MJPG"; shorter codes are padded with spaces.
  public init(_ code: String) {
    var value: UInt32 = 0
    for (position, byte) in Array(code.utf8.prefix(4)).enumerated() { value |= UInt32(byte) << (8 * position) }
    for position in code.utf8.count..<4 { value |= UInt32(UInt8(ascii: " ")) << (8 * position) }
    rawValue = value
  }

  public var description: String {
    let bytes = (0..<4).map { UInt8(truncatingIfNeeded: rawValue >> (8 * $0)) }
    let printable = bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    guard printable else { return "0x" + String(rawValue, radix: 16) }
    return String(decoding: bytes, as: UTF8.self).trimmingTrailingSpaces
  }

  public static let mjpeg = V4L2FourCC("MJPG")
  /// Plain JPEG: some cameras name their MJPEG stream this way.
  public static let jpeg = V4L2FourCC("JPEG")
  public static let yuyv = V4L2FourCC("YUYV")
  /// Packed 8-bit R, G, B (V4L2_PIX_FMT_RGB24).
  public static let rgb24 = V4L2FourCC("RGB3")
  /// Planar Y, U, V 4:2:0 (V4L2_PIX_FMT_YUV420).
  public static let yuv420 = V4L2FourCC("YU12")
}

extension String {
  fileprivate var trimmingTrailingSpaces: String {
    var text = Substring(self)
    while text.last == " " { text = text.dropLast() }
    return String(text)
  }
}

/// Capability bits of VIDIOC_QUERYCAP (V4L2_CAP_*).
public struct V4L2CapabilityFlags: OptionSet, Hashable, Sendable {
  public var rawValue: UInt32
  public init(rawValue: UInt32) { self.rawValue = rawValue }

  public static let videoCapture = V4L2CapabilityFlags(rawValue: 0x0000_0001)
  public static let videoOutput = V4L2CapabilityFlags(rawValue: 0x0000_0002)
  public static let videoCaptureMultiplanar = V4L2CapabilityFlags(rawValue: 0x0000_1000)
  public static let metadataCapture = V4L2CapabilityFlags(rawValue: 0x0080_0000)
  public static let readWrite = V4L2CapabilityFlags(rawValue: 0x0100_0000)
  public static let streaming = V4L2CapabilityFlags(rawValue: 0x0400_0000)
  /// Set when `device_caps` describes this node (the whole-device caps are broader).
  public static let deviceCapabilities = V4L2CapabilityFlags(rawValue: 0x8000_0000)
}

/// What VIDIOC_QUERYCAP says about a device node.
public struct V4L2Capabilities: Sendable, Equatable {
  public var driver: String
  public var card: String
  public var busInfo: String
  /// The capabilities of this node (the driver's `device_caps` when it gives them).
  public var flags: V4L2CapabilityFlags

  public init(driver: String, card: String, busInfo: String, flags: V4L2CapabilityFlags) {
    self.driver = driver
    self.card = card
    self.busInfo = busInfo
    self.flags = flags
  }

  /// Single-planar video capture with streaming I/O, which is what the camera code uses.
  public var capturesVideo: Bool { flags.contains(.videoCapture) && flags.contains(.streaming) }
}

/// One entry of VIDIOC_ENUM_FMT.
public struct V4L2FormatDescription: Sendable, Equatable {
  public var pixelFormat: V4L2FourCC
  public var description: String
  public var isCompressed: Bool
  /// Not the camera's own format: libv4l converts to it in software.
  public var isEmulated: Bool

  public init(pixelFormat: V4L2FourCC, description: String, isCompressed: Bool = false, isEmulated: Bool = false) {
    self.pixelFormat = pixelFormat
    self.description = description
    self.isCompressed = isCompressed
    self.isEmulated = isEmulated
  }
}

public struct V4L2Size: Hashable, Sendable, CustomStringConvertible {
  public var width: Int
  public var height: Int
  public init(width: Int, height: Int) {
    self.width = width
    self.height = height
  }
  public var description: String { "\(width)x\(height)" }
  var area: Int { width * height }
}

/// A time per frame in seconds, as V4L2 gives it (1/30 is 30 frames per second).
public struct V4L2Fraction: Hashable, Sendable, CustomStringConvertible {
  public var numerator: Int
  public var denominator: Int
  public init(numerator: Int, denominator: Int) {
    self.numerator = numerator
    self.denominator = denominator
  }

  /// Frames per second for a time per frame; nil when the fraction is empty.
  public var framesPerSecond: Double? {
    guard numerator > 0, denominator > 0 else { return nil }
    return Double(denominator) / Double(numerator)
  }

  /// The time per frame of a frame rate, exact for whole and common NTSC-style rates (29.97).
  public init(framesPerSecond: Double) {
    let scale = framesPerSecond.rounded() == framesPerSecond ? 1 : 1000
    var numerator = scale
    var denominator = Int((framesPerSecond * Double(scale)).rounded())
    var a = numerator
    var b = denominator
    while b != 0 { (a, b) = (b, a % b) }
    if a > 1 {
      numerator /= a
      denominator /= a
    }
    self.init(numerator: numerator, denominator: denominator)
  }

  public var description: String { "\(numerator)/\(denominator)" }
}

/// The frame sizes a format offers.
public enum V4L2FrameSizes: Sendable, Equatable {
  /// A list; empty when the driver does not enumerate sizes.
  case discrete([V4L2Size])
  /// Any size from minimum to maximum in steps (continuous when the step is 1).
  case stepwise(minimum: V4L2Size, maximum: V4L2Size, step: V4L2Size)
}

/// The frame intervals a format offers at one size.
public enum V4L2FrameIntervals: Sendable, Equatable {
  /// A list; empty when the driver does not enumerate intervals.
  case discrete([V4L2Fraction])
  case stepwise(minimum: V4L2Fraction, maximum: V4L2Fraction, step: V4L2Fraction)
}

/// A single-planar capture format (VIDIOC_G_FMT / VIDIOC_S_FMT).
public struct V4L2Format: Sendable, Equatable {
  public var pixelFormat: V4L2FourCC
  public var width: Int
  public var height: Int
  /// Bytes from one row to the next; 0 for compressed formats.
  public var bytesPerLine: Int
  /// The largest a frame can be, in bytes.
  public var sizeImage: Int

  public init(pixelFormat: V4L2FourCC, width: Int, height: Int, bytesPerLine: Int = 0, sizeImage: Int = 0) {
    self.pixelFormat = pixelFormat
    self.width = width
    self.height = height
    self.bytesPerLine = bytesPerLine
    self.sizeImage = sizeImage
  }

  public var size: V4L2Size { V4L2Size(width: width, height: height) }
}

/// The capture part of VIDIOC_G_PARM / VIDIOC_S_PARM.
public struct V4L2StreamParameters: Sendable, Equatable {
  public var timePerFrame: V4L2Fraction
  /// Whether the driver lets the frame rate be set (V4L2_CAP_TIMEPERFRAME).
  public var canSetTimePerFrame: Bool

  public init(timePerFrame: V4L2Fraction, canSetTimePerFrame: Bool) {
    self.timePerFrame = timePerFrame
    self.canSetTimePerFrame = canSetTimePerFrame
  }
}

/// Where a driver buffer is, for mapping it (VIDIOC_QUERYBUF).
public struct V4L2BufferLocation: Sendable, Equatable {
  public var index: Int
  public var offset: Int
  public var length: Int

  public init(index: Int, offset: Int, length: Int) {
    self.index = index
    self.offset = offset
    self.length = length
  }
}

/// Flags of a dequeued buffer (V4L2_BUF_FLAG_*).
public struct V4L2BufferFlags: OptionSet, Hashable, Sendable {
  public var rawValue: UInt32
  public init(rawValue: UInt32) { self.rawValue = rawValue }

  /// The driver saw the frame was damaged (a USB packet lost, for instance).
  public static let error = V4L2BufferFlags(rawValue: 0x0000_0040)
  /// The timestamp is on CLOCK_MONOTONIC.
  public static let timestampMonotonic = V4L2BufferFlags(rawValue: 0x0000_2000)
  /// The timestamp was copied from elsewhere (memory-to-memory devices).
  public static let timestampCopy = V4L2BufferFlags(rawValue: 0x0000_4000)
  static let timestampTypeMask = V4L2BufferFlags(rawValue: 0x0000_E000)
}

/// A filled buffer taken from the driver (VIDIOC_DQBUF).
public struct V4L2DequeuedBuffer: Sendable, Equatable {
  public var index: Int
  /// How many bytes of the buffer hold the frame.
  public var bytesUsed: Int
  public var flags: V4L2BufferFlags
  /// The driver's frame counter: a jump means frames were dropped.
  public var sequence: UInt32
  /// When the frame was captured, in microseconds on the clock `flags` names.
  public var timestampMicroseconds: Int64

  public init(index: Int, bytesUsed: Int, flags: V4L2BufferFlags, sequence: UInt32, timestampMicroseconds: Int64) {
    self.index = index
    self.bytesUsed = bytesUsed
    self.flags = flags
    self.sequence = sequence
    self.timestampMicroseconds = timestampMicroseconds
  }
}
