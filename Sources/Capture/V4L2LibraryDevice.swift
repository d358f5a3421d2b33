import CV4L2
import Foundation

/// The real `V4L2Device`: libv4l2 over the kernel's device nodes.
///
/// Going through libv4l2 rather than plain `ioctl` means formats the camera
/// lacks (RGB24, YUV420) are offered and converted in software, and the
/// vendor quirks libv4l knows about are handled.
public final class LibV4L2Device: V4L2Device {
  public init() {}

  public func open(path: String) throws(V4L2Error) -> V4L2Handle {
    // Non-blocking, so that a dequeue never hangs: waiting is done with poll
    // and a timeout instead.
    let descriptor = wb_v4l2_open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else { throw V4L2Error("open", code: errno) }
    return V4L2Handle(fileDescriptor: descriptor)
  }

  public func close(_ handle: V4L2Handle) { _ = wb_v4l2_close(handle.fileDescriptor) }

  public func queryCapabilities(_ handle: V4L2Handle) throws(V4L2Error) -> V4L2Capabilities {
    var capability = v4l2_capability()
    try control(handle, wb_vidioc_querycap, "VIDIOC_QUERYCAP", &capability)
    let wholeDevice = V4L2CapabilityFlags(rawValue: capability.capabilities)
    // A device with several nodes (video, metadata) reports everything in
    // `capabilities`; what this node does is in `device_caps`.
    let node =
      wholeDevice.contains(.deviceCapabilities)
      ? V4L2CapabilityFlags(rawValue: capability.device_caps) : wholeDevice
    return V4L2Capabilities(
      driver: Self.text(capability.driver), card: Self.text(capability.card), busInfo: Self.text(capability.bus_info),
      flags: node)
  }

  public func formats(_ handle: V4L2Handle) throws(V4L2Error) -> [V4L2FormatDescription] {
    var found: [V4L2FormatDescription] = []
    while true {
      var description = v4l2_fmtdesc()
      description.index = UInt32(found.count)
      description.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
      do {
        try control(handle, wb_vidioc_enum_fmt, "VIDIOC_ENUM_FMT", &description)
      } catch  where error.code == EINVAL {
        return found  // past the last index
      }
      found.append(
        V4L2FormatDescription(
          pixelFormat: V4L2FourCC(rawValue: description.pixelformat), description: Self.text(description.description),
          isCompressed: description.flags & UInt32(V4L2_FMT_FLAG_COMPRESSED) != 0,
          isEmulated: description.flags & UInt32(V4L2_FMT_FLAG_EMULATED) != 0))
    }
  }

  public func frameSizes(_ handle: V4L2Handle, pixelFormat: V4L2FourCC) throws(V4L2Error) -> V4L2FrameSizes {
    var sizes: [V4L2Size] = []
    while true {
      var entry = v4l2_frmsizeenum()
      entry.index = UInt32(sizes.count)
      entry.pixel_format = pixelFormat.rawValue
      do {
        try control(handle, wb_vidioc_enum_framesizes, "VIDIOC_ENUM_FRAMESIZES", &entry)
      } catch  where error.code == EINVAL || error.code == ENOTTY {
        return .discrete(sizes)
      }
      if entry.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
        sizes.append(V4L2Size(width: Int(entry.discrete.width), height: Int(entry.discrete.height)))
        continue
      }
      // Stepwise and continuous ranges come as a single entry at index 0.
      let range = entry.stepwise
      return .stepwise(
        minimum: V4L2Size(width: Int(range.min_width), height: Int(range.min_height)),
        maximum: V4L2Size(width: Int(range.max_width), height: Int(range.max_height)),
        step: V4L2Size(width: max(1, Int(range.step_width)), height: max(1, Int(range.step_height))))
    }
  }

  public func frameIntervals(_ handle: V4L2Handle, pixelFormat: V4L2FourCC, size: V4L2Size) throws(V4L2Error)
    -> V4L2FrameIntervals
  {
    var intervals: [V4L2Fraction] = []
    while true {
      var entry = v4l2_frmivalenum()
      entry.index = UInt32(intervals.count)
      entry.pixel_format = pixelFormat.rawValue
      entry.width = UInt32(size.width)
      entry.height = UInt32(size.height)
      do {
        try control(handle, wb_vidioc_enum_frameintervals, "VIDIOC_ENUM_FRAMEINTERVALS", &entry)
      } catch  where error.code == EINVAL || error.code == ENOTTY {
        return .discrete(intervals)
      }
      if entry.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue {
        intervals.append(Self.fraction(entry.discrete))
        continue
      }
      let range = entry.stepwise
      return .stepwise(
        minimum: Self.fraction(range.min), maximum: Self.fraction(range.max), step: Self.fraction(range.step))
    }
  }

  public func setFormat(_ handle: V4L2Handle, _ format: V4L2Format) throws(V4L2Error) -> V4L2Format {
    var request = v4l2_format()
    request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
    request.fmt.pix.width = UInt32(format.width)
    request.fmt.pix.height = UInt32(format.height)
    request.fmt.pix.pixelformat = format.pixelFormat.rawValue
    request.fmt.pix.field = V4L2_FIELD_ANY.rawValue
    try control(handle, wb_vidioc_s_fmt, "VIDIOC_S_FMT", &request)
    return Self.format(request)
  }

  public func getFormat(_ handle: V4L2Handle) throws(V4L2Error) -> V4L2Format {
    var request = v4l2_format()
    request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
    try control(handle, wb_vidioc_g_fmt, "VIDIOC_G_FMT", &request)
    return Self.format(request)
  }

  public func setStreamParameters(_ handle: V4L2Handle, timePerFrame: V4L2Fraction) throws(V4L2Error)
    -> V4L2StreamParameters
  {
    var parameters = v4l2_streamparm()
    parameters.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
    parameters.parm.capture.timeperframe.numerator = UInt32(timePerFrame.numerator)
    parameters.parm.capture.timeperframe.denominator = UInt32(timePerFrame.denominator)
    try control(handle, wb_vidioc_s_parm, "VIDIOC_S_PARM", &parameters)
    return Self.streamParameters(parameters)
  }

  public func getStreamParameters(_ handle: V4L2Handle) throws(V4L2Error) -> V4L2StreamParameters {
    var parameters = v4l2_streamparm()
    parameters.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
    try control(handle, wb_vidioc_g_parm, "VIDIOC_G_PARM", &parameters)
    return Self.streamParameters(parameters)
  }

  public func requestBuffers(_ handle: V4L2Handle, count: Int) throws(V4L2Error) -> Int {
    var request = v4l2_requestbuffers()
    request.count = UInt32(count)
    request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
    request.memory = V4L2_MEMORY_MMAP.rawValue
    try control(handle, wb_vidioc_reqbufs, "VIDIOC_REQBUFS", &request)
    return Int(request.count)
  }

  public func queryBuffer(_ handle: V4L2Handle, index: Int) throws(V4L2Error) -> V4L2BufferLocation {
    var buffer = Self.captureBuffer(index: index)
    try control(handle, wb_vidioc_querybuf, "VIDIOC_QUERYBUF", &buffer)
    return V4L2BufferLocation(index: index, offset: Int(buffer.m.offset), length: Int(buffer.length))
  }

  public func map(_ handle: V4L2Handle, _ location: V4L2BufferLocation) throws(V4L2Error)
    -> UnsafeMutableRawBufferPointer
  {
    let address = wb_v4l2_mmap(
      nil, location.length, PROT_READ | PROT_WRITE, MAP_SHARED, handle.fileDescriptor, off_t(location.offset))
    guard let address, address != MAP_FAILED else { throw V4L2Error("mmap", code: errno) }
    return UnsafeMutableRawBufferPointer(start: address, count: location.length)
  }

  public func unmap(_ memory: UnsafeMutableRawBufferPointer) {
    guard let address = memory.baseAddress else { return }
    _ = wb_v4l2_munmap(address, memory.count)
  }

  public func queueBuffer(_ handle: V4L2Handle, index: Int) throws(V4L2Error) {
    var buffer = Self.captureBuffer(index: index)
    try control(handle, wb_vidioc_qbuf, "VIDIOC_QBUF", &buffer)
  }

  public func dequeueBuffer(_ handle: V4L2Handle) throws(V4L2Error) -> V4L2DequeuedBuffer {
    var buffer = Self.captureBuffer(index: 0)
    try control(handle, wb_vidioc_dqbuf, "VIDIOC_DQBUF", &buffer)
    let microseconds = Int64(buffer.timestamp.tv_sec) * 1_000_000 + Int64(buffer.timestamp.tv_usec)
    return V4L2DequeuedBuffer(
      index: Int(buffer.index), bytesUsed: Int(buffer.bytesused), flags: V4L2BufferFlags(rawValue: buffer.flags),
      sequence: buffer.sequence, timestampMicroseconds: microseconds)
  }

  public func startStreaming(_ handle: V4L2Handle) throws(V4L2Error) {
    var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
    try control(handle, wb_vidioc_streamon, "VIDIOC_STREAMON", &type)
  }

  public func stopStreaming(_ handle: V4L2Handle) throws(V4L2Error) {
    var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
    try control(handle, wb_vidioc_streamoff, "VIDIOC_STREAMOFF", &type)
  }

  public func waitForFrame(_ handle: V4L2Handle, timeoutMilliseconds: Int) throws(V4L2Error) -> Bool {
    let result = wb_v4l2_wait_readable(handle.fileDescriptor, Int32(clamping: timeoutMilliseconds))
    guard result >= 0 else { throw V4L2Error("poll", code: errno) }
    return result == 1
  }

  /// One ioctl through libv4l2, retried when a signal interrupts it.
  private func control<Argument>(
    _ handle: V4L2Handle, _ request: UInt, _ name: String, _ argument: inout Argument
  ) throws(V4L2Error) {
    while true {
      let result = withUnsafeMutablePointer(to: &argument) {
        wb_v4l2_ioctl(handle.fileDescriptor, request, UnsafeMutableRawPointer($0))
      }
      if result >= 0 { return }
      let code = errno
      if code != EINTR { throw V4L2Error(name, code: code) }
    }
  }

  private static func captureBuffer(index: Int) -> v4l2_buffer {
    var buffer = v4l2_buffer()
    buffer.index = UInt32(index)
    buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
    buffer.memory = V4L2_MEMORY_MMAP.rawValue
    return buffer
  }

  private static func format(_ format: v4l2_format) -> V4L2Format {
    let pixels = format.fmt.pix
    return V4L2Format(
      pixelFormat: V4L2FourCC(rawValue: pixels.pixelformat), width: Int(pixels.width), height: Int(pixels.height),
      bytesPerLine: Int(pixels.bytesperline), sizeImage: Int(pixels.sizeimage))
  }

  private static func streamParameters(_ parameters: v4l2_streamparm) -> V4L2StreamParameters {
    let capture = parameters.parm.capture
    return V4L2StreamParameters(
      timePerFrame: fraction(capture.timeperframe),
      canSetTimePerFrame: capture.capability & UInt32(V4L2_CAP_TIMEPERFRAME) != 0)
  }

  private static func fraction(_ value: v4l2_fract) -> V4L2Fraction {
    V4L2Fraction(numerator: Int(value.numerator), denominator: Int(value.denominator))
  }

  /// A NUL-terminated fixed-size C string field (imported as a tuple of bytes).
  private static func text<Field>(_ field: Field) -> String {
    withUnsafeBytes(of: field) { bytes in
      String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
  }
}
