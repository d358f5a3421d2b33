import CFFmpeg
import Foundation
import Imaging
import Synchronization

/// What FFmpeg says about a video file before any frame is decoded.
public struct VideoFileDescription: Sendable, Equatable {
  /// FFmpeg's name of the container ("mov,mp4,m4a,3gp,3g2,mj2") and its long name.
  public var container: String
  public var containerLongName: String
  public var codec: String
  public var codecLongName: String
  public var profile: String?
  public var pixelFormat: String?
  /// The frames as they come out of the reader: turned upright.
  public var width: Int
  public var height: Int
  /// The frames as stored in the file.
  public var storedWidth: Int
  public var storedHeight: Int
  /// Degrees clockwise the stored frames are turned (0, 90, 180, 270).
  public var rotation: Int
  /// After the turn, frames are flipped left to right: the display matrix mirrors the picture.
  public var mirrored: Bool
  /// Frames the container declares.
  public var declaredFrames: Int?
  /// Seconds, when the container says.
  public var duration: Double?
  public var averageRate: Double?
  public var nominalRate: Double?
  public var bitRate: Int?
  public var videoStreams: Int
  public var audioStreams: Int
  public var otherStreams: Int
  /// This build has a decoder for the codec.
  public var decodable: Bool
  /// Luma uses 0-255 (JPEG) rather than 16-235; the reader gives full range either way.
  public var fullRange: Bool

  init(_ info: wb_video_info) {
    container = Self.text(info.container)
    containerLongName = Self.text(info.container_long)
    codec = Self.text(info.codec)
    codecLongName = Self.text(info.codec_long)
    let profile = Self.text(info.profile)
    self.profile = profile.isEmpty ? nil : profile
    let pixelFormat = Self.text(info.pixel_format)
    self.pixelFormat = pixelFormat.isEmpty ? nil : pixelFormat
    width = Int(info.width)
    height = Int(info.height)
    storedWidth = Int(info.stored_width)
    storedHeight = Int(info.stored_height)
    rotation = Int(info.rotation)
    mirrored = info.mirrored != 0
    declaredFrames = info.frame_count >= 0 ? Int(info.frame_count) : nil
    duration = info.duration >= 0 ? info.duration : nil
    averageRate = info.average_rate > 0 ? info.average_rate : nil
    nominalRate = info.nominal_rate > 0 ? info.nominal_rate : nil
    bitRate = info.bit_rate > 0 ? Int(info.bit_rate) : nil
    videoStreams = Int(info.video_streams)
    audioStreams = Int(info.audio_streams)
    otherStreams = Int(info.other_streams)
    decodable = info.decodable != 0
    fullRange = info.full_range != 0
  }

  /// A fixed-size C character array as a String.
  static func text<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { raw in
      let bytes = raw.bindMemory(to: UInt8.self)
      let end = bytes.firstIndex(of: 0) ?? bytes.count
      return String(decoding: bytes[..<end], as: UTF8.self)
    }
  }
}

/// The text of a NUL-terminated C character buffer.
func cText(_ buffer: [CChar]) -> String {
  String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// One opened FFmpeg reader and the calls that go through it. Not shared
/// between threads: the decode thread owns it once reading starts.
final class VideoFileReader {
  let path: String
  let description: VideoFileDescription
  let frameBytes: Int
  private var handle: OpaquePointer?
  private var messageBuffer = [CChar](repeating: 0, count: 512)

  /// Opens `path`; `decode` false only describes it (and reads packets).
  init(path: String, decode: Bool) throws(CaptureError) {
    self.path = path
    var handle: OpaquePointer?
    var info = wb_video_info()
    let status = messageBuffer.withUnsafeMutableBufferPointer { message in
      wb_video_open(path, decode ? 1 : 0, 1, &handle, &info, message.baseAddress, message.count)
    }
    let message = cText(messageBuffer)
    guard Int(status) == WB_VIDEO_OK, let handle else {
      throw Self.openError(path: path, status: Int(status), message: message, info: info)
    }
    self.handle = handle
    description = VideoFileDescription(info)
    frameBytes = Int(wb_video_frame_bytes(handle))
  }

  deinit { close() }

  func close() {
    guard let handle else { return }
    wb_video_close(handle)
    self.handle = nil
  }

  enum Read {
    case frame(seconds: Double, ticks: Int64, hasTime: Bool)
    case damaged(String)
    case end
  }

  /// Decodes the next frame into `buffer` (a yuv420p image of the reader's
  /// size), which is sized only once a frame has decoded; with `halfSize`,
  /// also its `halfSize` copy where the frame allows one.
  func readFrame(into buffer: ImageBuffer, halfSize: Bool = false) throws(CaptureError) -> Read {
    guard let handle else { return .end }
    var seconds = 0.0
    var ticks: Int64 = 0
    var hasTime: Int32 = 0
    var status = messageBuffer.withUnsafeMutableBufferPointer { message in
      wb_video_read_frame(handle, nil, 0, &seconds, &ticks, &hasTime, message.baseAddress, message.count)
    }
    if Int(status) == WB_VIDEO_FRAME {
      buffer.reshape(width: description.width, height: description.height, format: .yuv420p)
      let half = halfSize ? buffer.halfSizeBuffer() : nil
      var halfMade: Int32 = 0
      status = messageBuffer.withUnsafeMutableBufferPointer { message in
        wb_video_deliver_frame(
          handle, buffer.pixels, buffer.capacity, half?.pixels, half?.capacity ?? 0, &halfMade, message.baseAddress,
          message.count)
      }
      if halfMade != 0 { buffer.keepHalfSize() }
    }
    switch Int(status) {
    case WB_VIDEO_FRAME: return .frame(seconds: seconds, ticks: ticks, hasTime: hasTime != 0)
    case WB_VIDEO_DAMAGED: return .damaged(cText(messageBuffer))
    case WB_VIDEO_END: return .end
    default:
      throw CaptureError(
        .unreadableFile, source: path, cText(messageBuffer),
        help: "check that the file is whole; workbench probe \(path) says what is in it")
    }
  }

  enum Packet {
    case packet(seconds: Double?, keyframe: Bool, size: Int)
    case damaged(String)
    case end
  }

  /// The next packet of the video stream, not decoded.
  func readPacket() -> Packet {
    guard let handle else { return .end }
    var seconds = 0.0
    var hasTime: Int32 = 0
    var keyframe: Int32 = 0
    var size: Int32 = 0
    let status = messageBuffer.withUnsafeMutableBufferPointer { message in
      wb_video_read_packet(handle, &seconds, &hasTime, &keyframe, &size, message.baseAddress, message.count)
    }
    switch Int(status) {
    case WB_VIDEO_FRAME: return .packet(seconds: hasTime != 0 ? seconds : nil, keyframe: keyframe != 0, size: Int(size))
    case WB_VIDEO_DAMAGED: return .damaged(cText(messageBuffer))
    default: return .end
    }
  }

  /// "libavformat 59.27.100, libavcodec 59.37.100, libswscale 6.7.100".
  static var libraryVersions: String { FFmpegLibraries.versions }

  static func openError(path: String, status: Int, message: String, info: wb_video_info) -> CaptureError {
    switch status {
    case WB_VIDEO_NO_VIDEO:
      let audio = Int(info.audio_streams)
      let what =
        audio > 0
        ? "it has no video stream (\(audio) audio stream\(audio == 1 ? "" : "s") only)"
        : "it has no video stream"
      return CaptureError(
        .invalidRecording, source: path, what, help: "give a file with video; workbench probe \(path) lists its streams"
      )
    case WB_VIDEO_NO_DECODER where VideoFileDescription.text(info.codec) == "unknown":
      return CaptureError(
        .unsupportedFormat, source: path, message,
        help: "check where the file came from; workbench probe \(path) lists its streams")
    case WB_VIDEO_NO_DECODER:
      return CaptureError(
        .unsupportedFormat, source: path, message,
        help: "convert it to H.264: ffmpeg -i \(path) -c:v libx264 -crf 18 OUTPUT.mp4")
    case WB_VIDEO_DECODER_FAILED, WB_VIDEO_BAD_SIZE:
      return CaptureError(
        .unsupportedFormat, source: path, message,
        help: "convert it to H.264: ffmpeg -i \(path) -c:v libx264 -crf 18 OUTPUT.mp4")
    case WB_VIDEO_UNREADABLE:
      return CaptureError(.unreadableFile, source: path, message, help: "check the path and the file's permissions")
    case WB_VIDEO_NO_MEMORY:
      return CaptureError(.io, source: path, "out of memory opening the video")
    case WB_VIDEO_LIBRARY_MISSING:
      return CaptureError(
        .unsupportedFormat, source: path, "FFmpeg's libraries cannot be loaded to read it: \(message)",
        help: FFmpegLibraries.installAdvice)
    default:
      // A cut MP4 or MOV loses its index (moov), which is written last.
      if message.contains("moov atom not found") {
        return CaptureError(
          .invalidRecording, source: path,
          "its index (the moov box) is missing: the file was cut short or its recording never finished",
          help: "copy the whole file again; a recording stopped before it finished has no index to read it by")
      }
      return CaptureError(
        .invalidRecording, source: path, message.isEmpty ? "FFmpeg cannot read it as a video file" : message,
        help: RecordingSource.supportedFormatsHelp)
    }
  }
}

/// A video file of any container and codec this build of FFmpeg reads (MP4,
/// MOV, MKV, WebM, AVI; H.264, HEVC, VP8/VP9, AV1, MJPEG, ...).
///
/// Frames are decoded on a thread of their own a few frames ahead of the
/// frame loop, into a fixed ring of buffers: the decoder waits when the loop
/// has not taken the frames it made (a file never loses a frame), and the
/// loop waits only when decoding is behind. Each frame comes out as an
/// upright full-range `yuv420p` image whose luma plane is the gray image.
///
/// A frame's `t` is its presentation time in the file (`best_effort_timestamp`
/// × the stream's time base), so a variable-rate phone video keeps its real
/// times; only a timestamps sidecar beside the file overrides them. A time
/// that does not rise (a damaged file) is moved a millisecond past the one
/// before. A frame the decoder reports damaged is `.unreadable` at its
/// position; a file cut short gives the frames that are there.
final class VideoFileSource: FrameSource {
  /// Frames decoded ahead of the loop.
  static let ringSize = 4

  let info: SourceInfo
  private let decoder: DecodeAhead
  private let timeline: TimestampsTimeline?
  private var nextIndex: Int64 = 0
  private var lastTime = -Double.infinity
  private var isClosed = false

  init(path: String, context: RecordingContext) throws(CaptureError) {
    let reader = try VideoFileReader(path: path, decode: true)
    let description = reader.description
    timeline =
      context.sidecar == nil
      ? nil : context.timeline(header: description.averageRate.map { ($0, 1) })
    var details = [
      "container": description.container, "codec": description.codec, "decoder": "ffmpeg",
      "rotation": String(description.rotation),
    ]
    if let profile = description.profile { details["profile"] = profile }
    if let pixelFormat = description.pixelFormat { details["pixel_format"] = pixelFormat }
    // What the container says it holds, to tell a cut file from a short one at its end.
    if let declared = description.declaredFrames { details["declared_frames"] = String(declared) }
    if let duration = description.duration { details["declared_duration"] = String(duration) }
    if description.mirrored { details["mirrored"] = "true" }
    if description.rotation != 0 || description.mirrored {
      details["stored_size"] = "\(description.storedWidth)x\(description.storedHeight)"
    }
    var sourceDetails = details
    if let timeline {
      sourceDetails = context.details(timeline: timeline, details)
    } else {
      sourceDetails["timing"] = "container"
    }
    info = SourceInfo(
      kind: RecordingSource.Format.video.rawValue, name: path, width: description.width, height: description.height,
      fps: description.averageRate ?? description.nominalRate, frameCount: description.declaredFrames,
      details: sourceDetails)
    decoder = DecodeAhead(reader: reader, ringSize: Self.ringSize)
  }

  func next() throws(CaptureError) -> CapturedFrame? {
    guard !isClosed else { return nil }
    guard let decoded = try decoder.take() else { return nil }
    let index = nextIndex
    nextIndex += 1
    var t: Double
    if let timeline {
      t = timeline.time(ofFrame: index)
    } else {
      t = decoded.seconds
    }
    if !(t > lastTime) { t = lastTime.isFinite ? lastTime + 0.001 : 0 }
    lastTime = t
    switch decoded.content {
    case .image(let image): return CapturedFrame(index: index, t: t, payload: .image(image))
    case .damaged(let reason): return CapturedFrame(index: index, t: t, payload: .unreadable(reason: reason))
    }
  }

  func close() {
    guard !isClosed else { return }
    isClosed = true
    decoder.close()
  }

  func preferHalfSize(_ wanted: Bool) { decoder.makesHalfSize.store(wanted, ordering: .relaxed) }

  deinit { close() }

  /// Waits until the decode thread has filled its queue (true) or stopped
  /// before it could (false), for a test that needs the queue full before
  /// the loop takes a frame; a run never waits for it.
  func waitUntilDecodedAhead() -> Bool { decoder.waitUntilQueueIsFull() }
}

/// The decode thread and the buffers going round between it and the frame
/// loop: decoded frames one way, emptied buffers back the other.
private final class DecodeAhead: @unchecked Sendable {
  enum Content {
    case image(ImageBuffer)
    case damaged(String)
  }

  struct Decoded {
    var seconds: Double
    var content: Content
  }

  private let reader: VideoFileReader
  /// Whether each frame comes with its `halfSize` copy (the loop says; the
  /// frames decoded before it did come without).
  let makesHalfSize = Atomic(false)
  /// At most `ringSize` frames wait for the loop, damaged ones included; the
  /// decoder waits for room, so a file never loses a frame.
  private let decoded: BoundedHandoff<Decoded, CaptureError>
  /// The buffers the decoder may fill. It holds them all, so giving one back never waits.
  private let emptyBuffers: BoundedHandoff<ImageBuffer, Never>
  /// The buffer the loop holds (the last frame it took), given back on the next take.
  private var lent: ImageBuffer?
  private let threadDone = DispatchSemaphore(value: 0)

  init(reader: VideoFileReader, ringSize: Int) {
    self.reader = reader
    decoded = BoundedHandoff(capacity: ringSize, whenFull: .waitForRoom)
    // Empty until a frame decodes: a small damaged file may declare a huge size.
    emptyBuffers = BoundedHandoff(
      capacity: ringSize, whenFull: .waitForRoom, holding: (0..<ringSize).map { _ in ImageBuffer(format: .yuv420p) })
    let thread = Thread { [self] in run() }
    thread.name = "workbench-decode"
    thread.start()
  }

  private func run() {
    defer { threadDone.signal() }
    // A buffer to decode into and room for the frame, until the loop closes.
    while let buffer = emptyBuffers.take()?.element, decoded.waitForRoom() {
      let result: Result<VideoFileReader.Read, CaptureError>
      do {
        result = .success(try reader.readFrame(into: buffer, halfSize: makesHalfSize.load(ordering: .relaxed)))
      } catch {
        result = .failure(error)
      }
      switch result {
      case .success(.frame(let seconds, _, _)):
        decoded.put(Decoded(seconds: seconds, content: .image(buffer)))
      case .success(.damaged(let reason)):
        emptyBuffers.put(buffer)
        decoded.put(Decoded(seconds: .nan, content: .damaged(reason)))
      case .success(.end):
        decoded.close()
        return
      case .failure(let error):
        decoded.close(failing: error)
        return
      }
    }
  }

  /// The next frame in file order; nil at the end. The image belongs to the
  /// loop until the next call.
  func take() throws(CaptureError) -> Decoded? {
    if let lent {
      emptyBuffers.put(lent)
      self.lent = nil
    }
    guard var next = try decoded.take()?.element else { return nil }
    if case .image(let image) = next.content { lent = image }
    // A damaged frame has no time of its own: it sits just after the one before.
    if next.seconds.isNaN { next.seconds = -.infinity }
    return next
  }

  /// Waits until the ring is full of decoded frames (true), or the thread
  /// has stopped with fewer (false).
  func waitUntilQueueIsFull() -> Bool { decoded.waitUntilFull() }

  /// Stops the thread, waits for it to leave the reader, and closes the reader.
  func close() {
    decoded.close()
    emptyBuffers.close()
    threadDone.wait()
    reader.close()
  }
}
