import Capture
import Foundation

/// A pretend camera: what it says it is, what it offers, the frames it
/// delivers and the calls that fail.
public struct ScriptedCamera {
  public var capabilities: V4L2Capabilities
  public var formats: [ScriptedFormat]
  /// What waiting and dequeuing produce, in order. When they run out the
  /// camera stalls: every wait times out.
  public var events: [ScriptedEvent]
  /// Calls that fail with an errno (EBUSY at `.setFormat`, for instance).
  public var failures: [ScriptedOperation: Int32]
  /// Whether S_PARM changes the rate (V4L2_CAP_TIMEPERFRAME).
  public var canSetFrameRate: Bool
  public var timePerFrame: V4L2Fraction
  /// Buffers granted by REQBUFS; nil grants what is asked.
  public var grantedBuffers: Int?
  /// Extra bytes at the end of every row of raw formats, as some drivers add.
  public var rowPadding: Int
  /// False for drivers that do not enumerate sizes but still pick the
  /// nearest one they can do at S_FMT.
  public var listsSizes = true
  /// Frames that never run out, delivered once `events` have: a camera
  /// left streaming for hours (the soak).
  public var stream: ScriptedStream?

  public init(
    capabilities: V4L2Capabilities = ScriptedCamera.webcam, formats: [ScriptedFormat] = [],
    events: [ScriptedEvent] = [], failures: [ScriptedOperation: Int32] = [:], canSetFrameRate: Bool = true,
    timePerFrame: V4L2Fraction = V4L2Fraction(numerator: 1, denominator: 30), grantedBuffers: Int? = nil,
    rowPadding: Int = 0
  ) {
    self.capabilities = capabilities
    self.formats = formats
    self.events = events
    self.failures = failures
    self.canSetFrameRate = canSetFrameRate
    self.timePerFrame = timePerFrame
    self.grantedBuffers = grantedBuffers
    self.rowPadding = rowPadding
  }

  /// A USB webcam's video node.
  public static let webcam = V4L2Capabilities(
    driver: "uvcvideo", card: "Scripted Webcam", busInfo: "usb-0000:00:14.0-1",
    flags: [.videoCapture, .streaming, .deviceCapabilities])
  /// The metadata node a USB webcam has next to its video node.
  public static let metadataNode = V4L2Capabilities(
    driver: "uvcvideo", card: "Scripted Webcam", busInfo: "usb-0000:00:14.0-1",
    flags: [.metadataCapture, .streaming, .deviceCapabilities])
}

/// One pixel format with its sizes, each offering the same frame intervals.
public struct ScriptedFormat {
  public var description: V4L2FormatDescription
  public var sizes: [V4L2Size]
  public var intervals: [V4L2Fraction]

  public init(_ description: V4L2FormatDescription, sizes: [V4L2Size], rates: [Int] = [30]) {
    self.description = description
    self.sizes = sizes
    intervals = rates.map { V4L2Fraction(numerator: 1, denominator: $0) }
  }

  public static func mjpeg(_ sizes: [V4L2Size], rates: [Int] = [30]) -> ScriptedFormat {
    ScriptedFormat(
      V4L2FormatDescription(pixelFormat: .mjpeg, description: "Motion-JPEG", isCompressed: true), sizes: sizes,
      rates: rates)
  }

  public static func yuyv(_ sizes: [V4L2Size], rates: [Int] = [30]) -> ScriptedFormat {
    ScriptedFormat(V4L2FormatDescription(pixelFormat: .yuyv, description: "YUYV 4:2:2"), sizes: sizes, rates: rates)
  }

  /// A format libv4l adds by converting in software.
  public static func emulated(_ code: V4L2FourCC, _ sizes: [V4L2Size], rates: [Int] = [30]) -> ScriptedFormat {
    ScriptedFormat(
      V4L2FormatDescription(pixelFormat: code, description: "\(code) (emulated)", isEmulated: true), sizes: sizes,
      rates: rates)
  }
}

/// A camera that keeps streaming: `frames` in a loop, one every
/// 1/`framesPerSecond` s of CLOCK_MONOTONIC from the start of streaming,
/// stamped with that time.
public struct ScriptedStream {
  public var frames: [[UInt8]]
  public var framesPerSecond: Double
  /// A wait lasts until the next frame is due, as a real camera's poll
  /// does, and frames whose time passed while nobody dequeued are gone (a
  /// driver overwrites them); without it, frames come as fast as they are
  /// taken, each a frame interval after the last.
  public var realTime: Bool

  public init(frames: [[UInt8]], framesPerSecond: Double = 30, realTime: Bool = true) {
    precondition(!frames.isEmpty && framesPerSecond > 0, "a stream needs frames and a rate")
    self.frames = frames
    self.framesPerSecond = framesPerSecond
    self.realTime = realTime
  }
}

/// What one wait or dequeue meets.
public enum ScriptedEvent {
  case frame(ScriptedFrame)
  /// A wait that times out.
  case timeout
  /// A wait that reports ready and a dequeue that answers EAGAIN.
  case wouldBlock
  /// A dequeue that fails with this errno.
  case failure(Int32)
  /// The camera is unplugged: from here on every call fails with ENODEV.
  case unplug
}

public struct ScriptedFrame {
  public var bytes: [UInt8]
  public var timestampMicroseconds: Int64
  /// The driver's frame counter; nil counts delivered frames from 0.
  public var sequence: UInt32?
  public var flags: V4L2BufferFlags
  /// What the driver claims was filled; nil is `bytes.count`.
  public var bytesUsed: Int?

  public init(
    _ bytes: [UInt8], timestampMicroseconds: Int64, sequence: UInt32? = nil,
    flags: V4L2BufferFlags = [.timestampMonotonic], bytesUsed: Int? = nil
  ) {
    self.bytes = bytes
    self.timestampMicroseconds = timestampMicroseconds
    self.sequence = sequence
    self.flags = flags
    self.bytesUsed = bytesUsed
  }
}

public enum ScriptedOperation: Hashable, Sendable {
  case open, queryCapabilities, formats, frameSizes, frameIntervals, setFormat, getFormat
  case setStreamParameters, getStreamParameters, requestBuffers, queryBuffer, map, queueBuffer, dequeueBuffer
  case startStreaming, stopStreaming, waitForFrame
}

extension ScriptedFrame {
  /// A stand-in for a camera's JPEG: start-of-image, the frame number, end-of-image.
  public static func jpeg(_ number: UInt8, atMicroseconds time: Int64, sequence: UInt32? = nil) -> ScriptedFrame {
    ScriptedFrame([0xFF, 0xD8, number, 0xFF, 0xD9], timestampMicroseconds: time, sequence: sequence)
  }

  /// `count` stand-in JPEGs 1/30 s apart on a clock that started long ago
  /// (as CLOCK_MONOTONIC has, since boot).
  public static func jpegs(_ count: Int, startingAtMicroseconds start: Int64 = 86_400_000_000) -> [ScriptedFrame] {
    (0..<count).map { jpeg(UInt8($0), atMicroseconds: start + Int64($0) * 33_333) }
  }
}
