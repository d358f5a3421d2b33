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

/// A `V4L2Device` that plays `ScriptedCamera`s and records every call, so
/// tests can drive the camera code without a camera and check what it asked.
///
/// A camera run reads the device on its capture thread while the frame
/// loop closes it, so every call holds a lock, as a driver serialises them.
public final class ScriptedV4L2Device: V4L2Device, @unchecked Sendable {
  public enum Call: Equatable, Sendable {
    case open(String)
    case close
    case queryCapabilities
    case formats
    case frameSizes(V4L2FourCC)
    case frameIntervals(V4L2FourCC, V4L2Size)
    case setFormat(V4L2Format)
    case getFormat
    case setStreamParameters(V4L2Fraction)
    case getStreamParameters
    case requestBuffers(Int)
    case queryBuffer(Int)
    case map(Int)
    case unmap(Int)
    case queueBuffer(Int)
    /// The buffer index handed out.
    case dequeueBuffer(Int)
    case startStreaming
    case stopStreaming
    case waitForFrame
  }

  /// Cameras by device path; other paths do not exist (ENOENT).
  public var cameras: [String: ScriptedCamera]
  /// Errors at open by path (EACCES, EBUSY...), for nodes that exist.
  public var openErrors: [String: Int32]
  /// Every call in order, while `keepsCallLog`.
  public var calls: [Call] { locked { callLog } }
  /// False for a camera that streams for hours: the log would grow with
  /// every frame and be mistaken for a leak of the code under test.
  public var keepsCallLog = true
  private var callLog: [Call] = []
  private let lock = NSLock()

  private final class OpenCamera {
    var camera: ScriptedCamera
    var format: V4L2Format
    var timePerFrame: V4L2Fraction
    var bufferCount = 0
    var queued: [Int] = []
    var streaming = false
    var unplugged = false
    var framesDelivered: UInt32 = 0
    /// When streaming started (CLOCK_MONOTONIC, seconds), for `camera.stream`.
    var streamStart: Double?
    /// The stream's next frame number.
    var streamPosition = 0

    init(_ camera: ScriptedCamera, format: V4L2Format) {
      self.camera = camera
      self.format = format
      timePerFrame = camera.timePerFrame
    }
  }

  private var openCameras: [Int32: OpenCamera] = [:]
  private var mapped: [UnsafeMutableRawPointer: Int] = [:]
  private var nextDescriptor: Int32 = 3

  public init(cameras: [String: ScriptedCamera], openErrors: [String: Int32] = [:]) {
    self.cameras = cameras
    self.openErrors = openErrors
  }

  /// One camera at /dev/video0.
  public convenience init(_ camera: ScriptedCamera, path: String = "/dev/video0") {
    self.init(cameras: [path: camera])
  }

  /// Handles not closed yet.
  public var openHandleCount: Int { locked { openCameras.count } }
  /// Buffers mapped and not unmapped yet.
  public var mappedBufferCount: Int { locked { mapped.count } }
  /// Frames of `camera.stream` dequeued, over every open camera.
  public var streamFramesDelivered: Int { locked { streamFramesCount } }
  private var streamFramesCount = 0

  // MARK: V4L2Device

  public func open(path: String) throws(V4L2Error) -> V4L2Handle {
    lock.lock()
    defer { lock.unlock() }
    log(.open(path))
    if let code = openErrors[path] { throw V4L2Error("open", code: code) }
    guard let camera = cameras[path] else { throw V4L2Error("open", code: ENOENT) }
    if let code = camera.failures[.open] { throw V4L2Error("open", code: code) }
    let first = camera.formats.first
    let size = first?.sizes.first ?? V4L2Size(width: 640, height: 480)
    let descriptor = nextDescriptor
    nextDescriptor += 1
    openCameras[descriptor] = OpenCamera(
      camera, format: Self.layout(first?.description.pixelFormat ?? .yuyv, size, padding: camera.rowPadding))
    return V4L2Handle(fileDescriptor: descriptor)
  }

  public func close(_ handle: V4L2Handle) {
    lock.lock()
    defer { lock.unlock() }
    log(.close)
    openCameras[handle.fileDescriptor] = nil
  }

  public func queryCapabilities(_ handle: V4L2Handle) throws(V4L2Error) -> V4L2Capabilities {
    lock.lock()
    defer { lock.unlock() }
    log(.queryCapabilities)
    return try camera(handle, .queryCapabilities, "VIDIOC_QUERYCAP").camera.capabilities
  }

  public func formats(_ handle: V4L2Handle) throws(V4L2Error) -> [V4L2FormatDescription] {
    lock.lock()
    defer { lock.unlock() }
    log(.formats)
    return try camera(handle, .formats, "VIDIOC_ENUM_FMT").camera.formats.map(\.description)
  }

  public func frameSizes(_ handle: V4L2Handle, pixelFormat: V4L2FourCC) throws(V4L2Error) -> V4L2FrameSizes {
    lock.lock()
    defer { lock.unlock() }
    log(.frameSizes(pixelFormat))
    let state = try camera(handle, .frameSizes, "VIDIOC_ENUM_FRAMESIZES")
    guard state.camera.listsSizes else { return .discrete([]) }
    return .discrete(state.camera.formats.first { $0.description.pixelFormat == pixelFormat }?.sizes ?? [])
  }

  public func frameIntervals(_ handle: V4L2Handle, pixelFormat: V4L2FourCC, size: V4L2Size) throws(V4L2Error)
    -> V4L2FrameIntervals
  {
    lock.lock()
    defer { lock.unlock() }
    log(.frameIntervals(pixelFormat, size))
    let state = try camera(handle, .frameIntervals, "VIDIOC_ENUM_FRAMEINTERVALS")
    let format = state.camera.formats.first { $0.description.pixelFormat == pixelFormat && $0.sizes.contains(size) }
    return .discrete(format?.intervals ?? [])
  }

  /// Behaves like a driver: an unknown pixel format becomes the first one
  /// offered and an unknown size the nearest offered.
  public func setFormat(_ handle: V4L2Handle, _ requested: V4L2Format) throws(V4L2Error) -> V4L2Format {
    lock.lock()
    defer { lock.unlock() }
    log(.setFormat(requested))
    let state = try camera(handle, .setFormat, "VIDIOC_S_FMT")
    if state.streaming || state.bufferCount > 0 { throw V4L2Error("VIDIOC_S_FMT", code: EBUSY) }
    let offered =
      state.camera.formats.first { $0.description.pixelFormat == requested.pixelFormat } ?? state.camera.formats.first
    let code = offered?.description.pixelFormat ?? requested.pixelFormat
    let sizes = offered?.sizes ?? []
    var size = requested.size
    if !sizes.isEmpty && !sizes.contains(size) {
      size =
        sizes.min {
          abs($0.width * $0.height - size.width * size.height) < abs($1.width * $1.height - size.width * size.height)
        } ?? size
    }
    state.format = Self.layout(code, size, padding: state.camera.rowPadding)
    return state.format
  }

  public func getFormat(_ handle: V4L2Handle) throws(V4L2Error) -> V4L2Format {
    lock.lock()
    defer { lock.unlock() }
    log(.getFormat)
    return try camera(handle, .getFormat, "VIDIOC_G_FMT").format
  }

  /// Picks the offered interval nearest the one asked for.
  public func setStreamParameters(_ handle: V4L2Handle, timePerFrame: V4L2Fraction) throws(V4L2Error)
    -> V4L2StreamParameters
  {
    lock.lock()
    defer { lock.unlock() }
    log(.setStreamParameters(timePerFrame))
    let state = try camera(handle, .setStreamParameters, "VIDIOC_S_PARM")
    if state.camera.canSetFrameRate {
      let wanted = timePerFrame.framesPerSecond ?? 0
      let offered =
        state.camera.formats.first { $0.description.pixelFormat == state.format.pixelFormat }?.intervals ?? []
      state.timePerFrame =
        offered.min { abs(($0.framesPerSecond ?? 0) - wanted) < abs(($1.framesPerSecond ?? 0) - wanted) }
        ?? timePerFrame
    }
    return V4L2StreamParameters(timePerFrame: state.timePerFrame, canSetTimePerFrame: state.camera.canSetFrameRate)
  }

  public func getStreamParameters(_ handle: V4L2Handle) throws(V4L2Error) -> V4L2StreamParameters {
    lock.lock()
    defer { lock.unlock() }
    log(.getStreamParameters)
    let state = try camera(handle, .getStreamParameters, "VIDIOC_G_PARM")
    return V4L2StreamParameters(timePerFrame: state.timePerFrame, canSetTimePerFrame: state.camera.canSetFrameRate)
  }

  public func requestBuffers(_ handle: V4L2Handle, count: Int) throws(V4L2Error) -> Int {
    lock.lock()
    defer { lock.unlock() }
    log(.requestBuffers(count))
    let state = try camera(handle, .requestBuffers, "VIDIOC_REQBUFS")
    if state.streaming { throw V4L2Error("VIDIOC_REQBUFS", code: EBUSY) }
    state.bufferCount = count == 0 ? 0 : state.camera.grantedBuffers ?? count
    state.queued = []
    return state.bufferCount
  }

  public func queryBuffer(_ handle: V4L2Handle, index: Int) throws(V4L2Error) -> V4L2BufferLocation {
    lock.lock()
    defer { lock.unlock() }
    log(.queryBuffer(index))
    let state = try camera(handle, .queryBuffer, "VIDIOC_QUERYBUF")
    guard index >= 0 && index < state.bufferCount else { throw V4L2Error("VIDIOC_QUERYBUF", code: EINVAL) }
    return V4L2BufferLocation(index: index, offset: index * 0x10_0000, length: state.format.sizeImage)
  }

  public func map(_ handle: V4L2Handle, _ location: V4L2BufferLocation) throws(V4L2Error)
    -> UnsafeMutableRawBufferPointer
  {
    lock.lock()
    defer { lock.unlock() }
    log(.map(location.index))
    _ = try camera(handle, .map, "mmap")
    let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: max(location.length, 1), alignment: 16)
    memory.initializeMemory(as: UInt8.self, repeating: 0)
    mapped[memory.baseAddress!] = location.index
    return memory
  }

  public func unmap(_ memory: UnsafeMutableRawBufferPointer) {
    lock.lock()
    defer { lock.unlock() }
    guard let address = memory.baseAddress, let index = mapped.removeValue(forKey: address) else { return }
    log(.unmap(index))
    memory.deallocate()
  }

  public func queueBuffer(_ handle: V4L2Handle, index: Int) throws(V4L2Error) {
    lock.lock()
    defer { lock.unlock() }
    log(.queueBuffer(index))
    let state = try camera(handle, .queueBuffer, "VIDIOC_QBUF")
    guard index >= 0 && index < state.bufferCount, !state.queued.contains(index) else {
      throw V4L2Error("VIDIOC_QBUF", code: EINVAL)
    }
    state.queued.append(index)
  }

  public func dequeueBuffer(_ handle: V4L2Handle) throws(V4L2Error) -> V4L2DequeuedBuffer {
    lock.lock()
    defer { lock.unlock() }
    let state = try camera(handle, .dequeueBuffer, "VIDIOC_DQBUF")
    guard state.streaming else { throw V4L2Error("VIDIOC_DQBUF", code: EINVAL) }
    guard !state.camera.events.isEmpty else {
      guard let stream = state.camera.stream else { throw V4L2Error("VIDIOC_DQBUF", code: EAGAIN) }
      return try dequeue(streamFrame(stream, state), state)
    }
    switch state.camera.events.removeFirst() {
    case .timeout, .wouldBlock:
      throw V4L2Error("VIDIOC_DQBUF", code: EAGAIN)
    case .failure(let code):
      throw V4L2Error("VIDIOC_DQBUF", code: code)
    case .unplug:
      state.unplugged = true
      throw V4L2Error("VIDIOC_DQBUF", code: ENODEV)
    case .frame(let frame):
      guard !state.queued.isEmpty else {
        // Every buffer is with the application: nothing to fill yet.
        state.camera.events.insert(.frame(frame), at: 0)
        throw V4L2Error("VIDIOC_DQBUF", code: EAGAIN)
      }
      return try dequeue(frame, state)
    }
  }

  /// Fills the oldest queued buffer with `frame` and hands it out.
  private func dequeue(_ frame: ScriptedFrame, _ state: OpenCamera) throws(V4L2Error) -> V4L2DequeuedBuffer {
    guard !state.queued.isEmpty else { throw V4L2Error("VIDIOC_DQBUF", code: EAGAIN) }
    let index = state.queued.removeFirst()
    guard let memory = mapped.first(where: { $0.value == index })?.key else {
      throw V4L2Error("VIDIOC_DQBUF", code: EINVAL)
    }
    let length = min(frame.bytes.count, state.format.sizeImage)
    frame.bytes.withUnsafeBytes { memory.copyMemory(from: $0.baseAddress!, byteCount: length) }
    let sequence = frame.sequence ?? state.framesDelivered
    state.framesDelivered &+= 1
    log(.dequeueBuffer(index))
    return V4L2DequeuedBuffer(
      index: index, bytesUsed: frame.bytesUsed ?? length, flags: frame.flags, sequence: sequence,
      timestampMicroseconds: frame.timestampMicroseconds)
  }

  /// The stream's next frame: in real time the newest one already due
  /// (those whose time passed unread are gone, their numbers skipped), else
  /// simply the next.
  private func streamFrame(_ stream: ScriptedStream, _ state: OpenCamera) -> ScriptedFrame {
    let start = state.streamStart ?? Self.monotonicSeconds()
    state.streamStart = start
    if stream.realTime {
      let due = Int(((Self.monotonicSeconds() - start) * stream.framesPerSecond).rounded(.down))
      state.streamPosition = max(state.streamPosition, due)
    }
    let number = state.streamPosition
    state.streamPosition += 1
    streamFramesCount += 1
    let seconds = start + Double(number) / stream.framesPerSecond
    return ScriptedFrame(
      stream.frames[number % stream.frames.count], timestampMicroseconds: Int64((seconds * 1_000_000).rounded()),
      sequence: UInt32(truncatingIfNeeded: number))
  }

  private static func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
  }

  public func startStreaming(_ handle: V4L2Handle) throws(V4L2Error) {
    lock.lock()
    defer { lock.unlock() }
    log(.startStreaming)
    let state = try camera(handle, .startStreaming, "VIDIOC_STREAMON")
    guard state.bufferCount > 0 else { throw V4L2Error("VIDIOC_STREAMON", code: EINVAL) }
    state.streaming = true
  }

  public func stopStreaming(_ handle: V4L2Handle) throws(V4L2Error) {
    lock.lock()
    defer { lock.unlock() }
    log(.stopStreaming)
    let state = try camera(handle, .stopStreaming, "VIDIOC_STREAMOFF")
    state.streaming = false
    state.queued = []
  }

  public func waitForFrame(_ handle: V4L2Handle, timeoutMilliseconds: Int) throws(V4L2Error) -> Bool {
    // The wait for a real-time stream's next frame happens outside the
    // lock, so that closing the camera meanwhile is not held up.
    let (ready, wait) = try readiness(handle, timeout: Double(timeoutMilliseconds) / 1000)
    if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
    return ready
  }

  /// Whether a frame is ready, and how long to wait before saying so.
  private func readiness(_ handle: V4L2Handle, timeout: Double) throws(V4L2Error) -> (ready: Bool, wait: Double) {
    lock.lock()
    defer { lock.unlock() }
    log(.waitForFrame)
    guard let state = openCameras[handle.fileDescriptor] else { throw V4L2Error("poll", code: EBADF) }
    if let code = state.camera.failures[.waitForFrame] { throw V4L2Error("poll", code: code) }
    // Like poll(): an unplugged or idle device reports POLLERR, i.e. "ready",
    // and the dequeue that follows says what is wrong.
    if state.unplugged || !state.streaming { return (true, 0) }
    guard let event = state.camera.events.first else {
      guard let stream = state.camera.stream else { return (false, 0) }
      guard stream.realTime else { return (true, 0) }
      let start = state.streamStart ?? Self.monotonicSeconds()
      state.streamStart = start
      let due = start + Double(state.streamPosition) / stream.framesPerSecond - Self.monotonicSeconds()
      return due <= timeout ? (true, max(0, due)) : (false, timeout)
    }
    if case .timeout = event {
      state.camera.events.removeFirst()
      return (false, 0)
    }
    return (true, 0)
  }

  // MARK: Helpers

  private func log(_ call: Call) {
    if keepsCallLog { callLog.append(call) }
  }

  private func locked<Value>(_ body: () -> Value) -> Value {
    lock.lock()
    defer { lock.unlock() }
    return body()
  }

  /// The open camera behind a handle, or the errno this call is scripted to fail with.
  private func camera(_ handle: V4L2Handle, _ operation: ScriptedOperation, _ name: String) throws(V4L2Error)
    -> OpenCamera
  {
    guard let state = openCameras[handle.fileDescriptor] else { throw V4L2Error(name, code: EBADF) }
    if state.unplugged { throw V4L2Error(name, code: ENODEV) }
    if let code = state.camera.failures[operation] { throw V4L2Error(name, code: code) }
    return state
  }

  /// Row and image sizes the way drivers fill them in.
  private static func layout(_ code: V4L2FourCC, _ size: V4L2Size, padding: Int) -> V4L2Format {
    let width = size.width
    let height = size.height
    switch code {
    case .yuyv:
      let row = width * 2 + padding
      return V4L2Format(pixelFormat: code, width: width, height: height, bytesPerLine: row, sizeImage: row * height)
    case .rgb24:
      let row = width * 3 + padding
      return V4L2Format(pixelFormat: code, width: width, height: height, bytesPerLine: row, sizeImage: row * height)
    case .yuv420:
      let row = width + padding
      return V4L2Format(
        pixelFormat: code, width: width, height: height, bytesPerLine: row,
        sizeImage: row * height + 2 * (row / 2) * ((height + 1) / 2))
    default:
      return V4L2Format(pixelFormat: code, width: width, height: height, sizeImage: max(width * height * 2, 4096))
    }
  }
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
