import Foundation
import Imaging

/// A V4L2 camera read frame by frame through memory-mapped buffers.
///
/// Opening negotiates a pixel format (MJPEG, else YUYV, else what libv4l
/// converts to), a size and a frame rate, then streams. Each `next()` waits
/// for a filled buffer, copies or converts it into memory the source reuses,
/// and hands the buffer straight back to the driver.
public final class CameraSource: FrameSource {
  /// Buffers requested from the driver: enough to absorb a slow frame
  /// without dropping, few enough to keep latency at a frame or two.
  public static let bufferCount = 4
  /// One wait for a frame; a stalled camera is noticed after several.
  static let frameWaitMilliseconds = 1000
  /// Consecutive empty waits before giving up: generous, because some
  /// cameras take seconds to deliver the first frame or slow down in the dark.
  static let emptyWaitsBeforeStall = 5
  /// Consecutive "ready but nothing to dequeue" answers tolerated, so that a
  /// misbehaving driver cannot spin this loop forever.
  static let spuriousWakeupsBeforeFailure = 1000

  public private(set) var info: SourceInfo
  public let path: String
  /// The format the driver agreed to.
  public private(set) var format: V4L2Format

  private let device: any V4L2Device
  private var handle: V4L2Handle?
  private var buffers: [UnsafeMutableRawBufferPointer] = []
  private var streaming = false
  /// Once the camera is gone every later `next()` reports the same error.
  private var failure: CaptureError?

  private var jpegBytes: [UInt8] = []
  private let image = ImageBuffer(format: .yuv420p)
  private var firstTimestamp: Int64?
  private var lastTime = 0.0
  private var lastSequence: UInt32?
  private var lastIndex: Int64 = -1
  private var framesDelivered: Int64 = 0

  private init(path: String, device: any V4L2Device, handle: V4L2Handle) {
    self.path = path
    self.device = device
    self.handle = handle
    info = SourceInfo(kind: "camera", name: path)
    format = V4L2Format(pixelFormat: .mjpeg, width: 0, height: 0)
  }

  deinit { close() }

  /// Opens and starts a camera.
  /// - Parameters:
  ///   - path: The device node, such as /dev/video0.
  ///   - size: The frame size; it must be one the camera offers. Without it,
  ///     1280×720 when offered, else the largest size below it.
  ///   - fps: Frames per second to ask for; a camera that refuses keeps its
  ///     own rate, which `info.fps` reports.
  ///   - device: The V4L2 calls (libv4l2 unless a test scripts them).
  public static func open(
    path: String, size: (width: Int, height: Int)? = nil, fps: Double? = nil,
    device: any V4L2Device = LibV4L2Device()
  ) throws(CaptureError) -> CameraSource {
    let handle: V4L2Handle
    do { handle = try device.open(path: path) } catch { throw CameraErrors.setup(error, path: path) }
    let source = CameraSource(path: path, device: device, handle: handle)
    do {
      try source.start(
        handle, requestedSize: size.map { V4L2Size(width: $0.width, height: $0.height) }, requestedRate: fps)
    } catch {
      source.close()
      throw error
    }
    return source
  }

  private func start(_ handle: V4L2Handle, requestedSize: V4L2Size?, requestedRate: Double?) throws(CaptureError) {
    let capabilities = try setup { () throws(V4L2Error) in try device.queryCapabilities(handle) }
    guard capabilities.capturesVideo else { throw CameraErrors.notACaptureDevice(path, capabilities) }

    let formats = try setup { () throws(V4L2Error) in try device.formats(handle) }
    let choice = try CameraNegotiation.choose(path: path, formats: formats, requested: requestedSize) {
      (code) throws(V4L2Error) in try device.frameSizes(handle, pixelFormat: code)
    }
    let asked = choice.size ?? CameraNegotiation.defaultSize
    let agreed = try setup { () throws(V4L2Error) in
      try device.setFormat(
        handle, V4L2Format(pixelFormat: choice.format.pixelFormat, width: asked.width, height: asked.height))
    }
    guard agreed.pixelFormat == choice.format.pixelFormat else {
      throw CaptureError(
        .unsupportedFormat, source: path,
        "the driver refused \(choice.format.pixelFormat) and offered \(agreed.pixelFormat) instead")
    }
    if let requestedSize, agreed.size != requestedSize {
      throw CaptureError(
        .unsupportedFormat, source: path,
        "the driver refused \(requestedSize) in \(agreed.pixelFormat) and offered \(agreed.size) instead",
        help: "pass --size \(agreed.size), or leave --size out")
    }
    format = agreed

    let rate = frameRate(handle, requested: requestedRate)

    let granted = try setup { () throws(V4L2Error) in try device.requestBuffers(handle, count: Self.bufferCount) }
    guard granted > 0 else {
      throw CaptureError(.io, source: path, "the driver granted no capture buffers")
    }
    for index in 0..<granted {
      let location = try setup { () throws(V4L2Error) in try device.queryBuffer(handle, index: index) }
      buffers.append(try setup { () throws(V4L2Error) in try device.map(handle, location) })
    }
    for index in 0..<granted {
      try setup { () throws(V4L2Error) in try device.queueBuffer(handle, index: index) }
    }
    try setup { () throws(V4L2Error) in try device.startStreaming(handle) }
    streaming = true

    var details = [
      "driver": capabilities.driver, "card": capabilities.card, "bus": capabilities.busInfo,
      "pixel_format": agreed.pixelFormat.description, "buffers": String(granted),
    ]
    if choice.format.isEmulated { details["converted_by"] = "libv4l" }
    if let requestedRate { details["requested_fps"] = String(requestedRate) }
    info = SourceInfo(
      kind: "camera", name: path, width: agreed.width, height: agreed.height, fps: rate, details: details)
  }

  /// Asks for the requested rate when there is one; a driver that refuses
  /// keeps its own rate, and the rate reported is always the one in force.
  private func frameRate(_ handle: V4L2Handle, requested: Double?) -> Double? {
    var chosen: Double?
    if let requested, requested > 0 {
      chosen = try? device.setStreamParameters(handle, timePerFrame: V4L2Fraction(framesPerSecond: requested))
        .timePerFrame.framesPerSecond
    }
    if let current = try? device.getStreamParameters(handle).timePerFrame.framesPerSecond { return current }
    return chosen
  }

  public func next() throws(CaptureError) -> CapturedFrame? {
    if let failure { throw failure }
    guard let handle, streaming else { return nil }
    var emptyWaits = 0
    var spuriousWakeups = 0
    while true {
      let filled: V4L2DequeuedBuffer
      do {
        guard try device.waitForFrame(handle, timeoutMilliseconds: Self.frameWaitMilliseconds) else {
          emptyWaits += 1
          if emptyWaits >= Self.emptyWaitsBeforeStall {
            throw remember(
              CameraErrors.stalled(path, seconds: Double(emptyWaits * Self.frameWaitMilliseconds) / 1000))
          }
          continue
        }
        filled = try device.dequeueBuffer(handle)
      } catch let error as V4L2Error where error.code == EAGAIN {
        spuriousWakeups += 1
        if spuriousWakeups >= Self.spuriousWakeupsBeforeFailure {
          throw remember(CaptureError(.io, source: path, "the camera keeps waking up without a frame (\(error))"))
        }
        continue
      } catch let error as V4L2Error {
        throw remember(streamingError(error))
      } catch let error as CaptureError {
        throw error
      } catch {
        throw remember(CaptureError(.io, source: path, "camera error: \(error)"))
      }
      return try deliver(filled, handle)
    }
  }

  /// Turns a filled buffer into a frame, then gives the buffer back.
  private func deliver(_ filled: V4L2DequeuedBuffer, _ handle: V4L2Handle) throws(CaptureError) -> CapturedFrame {
    guard buffers.indices.contains(filled.index) else {
      throw remember(CaptureError(.io, source: path, "the driver returned unknown buffer \(filled.index)"))
    }
    let frame = CapturedFrame(
      index: frameIndex(filled.sequence), t: frameTime(filled), payload: payload(filled))
    framesDelivered += 1
    do {
      try device.queueBuffer(handle, index: filled.index)
    } catch {
      // The frame is already copied out: deliver it, and report the problem next time.
      failure = streamingError(error)
    }
    return frame
  }

  private func payload(_ filled: V4L2DequeuedBuffer) -> FramePayload {
    if filled.flags.contains(.error) { return .unreadable(reason: "the driver marked the frame as damaged") }
    if filled.bytesUsed == 0 { return .unreadable(reason: "the driver delivered an empty buffer") }
    let memory = UnsafeRawBufferPointer(buffers[filled.index])
    let bytes = UnsafeRawBufferPointer(rebasing: memory.prefix(min(filled.bytesUsed, memory.count)))
    let width = format.width
    let height = format.height
    let converted: Bool
    switch format.pixelFormat {
    case .mjpeg, .jpeg:
      // Refilled in place: the storage is reused whenever the caller let go
      // of the previous frame's array.
      jpegBytes.removeAll(keepingCapacity: true)
      jpegBytes.append(contentsOf: bytes)
      return .jpeg(jpegBytes)
    case .yuyv:
      // Some drivers leave the row length out for packed formats.
      let rowLength = max(format.bytesPerLine, (width + 1) / 2 * 4)
      converted = CameraPixels.convertYUYV(bytes, width: width, height: height, bytesPerLine: rowLength, into: image)
    case .yuv420:
      converted = CameraPixels.copyYUV420(
        bytes, width: width, height: height, bytesPerLine: format.bytesPerLine, into: image)
    case .rgb24:
      converted = CameraPixels.copyRGB24(
        bytes, width: width, height: height, bytesPerLine: format.bytesPerLine, into: image)
    default:
      return .unreadable(reason: "unexpected pixel format \(format.pixelFormat)")
    }
    guard converted else {
      return .unreadable(
        reason: "short \(format.pixelFormat) frame: \(filled.bytesUsed) bytes for \(width)x\(height)")
    }
    return .image(image)
  }

  /// Counts from the driver's sequence so that dropped frames leave gaps.
  /// A sequence that stands still or goes back (some drivers never fill it
  /// in) still advances the index by one.
  private func frameIndex(_ sequence: UInt32) -> Int64 {
    defer { lastSequence = sequence }
    guard let lastSequence else {
      lastIndex = 0
      return 0
    }
    let step = sequence &- lastSequence  // wraps around with the counter
    lastIndex += step == 0 || step > UInt32.max / 2 ? 1 : Int64(step)
    return lastIndex
  }

  /// Seconds since the first frame on the capture clock, never going back.
  private func frameTime(_ filled: V4L2DequeuedBuffer) -> Double {
    var stamp = filled.timestampMicroseconds
    // Without a monotonic driver timestamp, the time of dequeuing is the
    // best there is.
    let timestampType = filled.flags.intersection(.timestampTypeMask)
    if stamp <= 0 || timestampType != .timestampMonotonic {
      var now = timespec()
      clock_gettime(CLOCK_MONOTONIC, &now)
      stamp = Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }
    let first = firstTimestamp ?? stamp
    firstTimestamp = first
    lastTime = max(lastTime, Double(stamp - first) / 1_000_000)
    return lastTime
  }

  private func streamingError(_ error: V4L2Error) -> CaptureError {
    switch error.code {
    case ENODEV, EIO, ENXIO, EPIPE:
      return CameraErrors.disconnected(path, error, framesDelivered: framesDelivered)
    default:
      return CaptureError(.io, source: path, "camera error after \(framesDelivered) frames: \(error)")
    }
  }

  private func remember(_ error: CaptureError) -> CaptureError {
    failure = error
    return error
  }

  private func setup<Value>(_ call: () throws(V4L2Error) -> Value) throws(CaptureError) -> Value {
    do { return try call() } catch { throw CameraErrors.setup(error, path: path) }
  }

  /// Stops streaming, unmaps the buffers and closes the device. Safe to call
  /// twice and after the camera was unplugged (the calls then fail quietly).
  public func close() {
    guard let handle else { return }
    if streaming { try? device.stopStreaming(handle) }
    streaming = false
    for memory in buffers { device.unmap(memory) }
    buffers = []
    device.close(handle)
    self.handle = nil
  }
}
