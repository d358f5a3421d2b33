import Capture
import Foundation

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
