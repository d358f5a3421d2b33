import CFFmpeg
import FileSystem
import Foundation
import Imaging
import JSONCore

#if canImport(Glibc)
  import Glibc
#endif

/// Records frames as H.264 (libx264) in the container its name's extension
/// names (`.mp4`, `.mov`, `.mkv`, `.m4v`), as LUNA ID records its sessions,
/// with the timestamps sidecar beside it as for AVI.
///
/// Encoding runs beside the frame loop: `append` copies the frame into a
/// queue of `queueDepth` frames and returns; a thread of its own decodes JPEG
/// frames and encodes. When the queue is full, frames from a camera
/// (`dropsWhenBehind`) are dropped and counted (`framesDropped`), as a camera
/// drops frames the loop cannot take, so the camera never waits; frames from
/// a file wait for room, so a copy keeps every frame.
/// Every frame keeps its time as its presentation timestamp.
///
/// The file is written under a temporary name beside `path` and renamed by
/// `finish()` once its trailer (the MP4 index, moved to the front:
/// `+faststart`) is written, so the path never holds a file that does not
/// play. `finish()` may be called from any exit path (Ctrl-C, a lost camera,
/// an error), more than once, and from another thread than `append`.
public final class VideoFileWriter: @unchecked Sendable {
  /// The extensions recorded as H.264 video (any other is AVI).
  public static let extensions: Set<String> = ["mp4", "mov", "mkv", "m4v"]
  /// Frames waiting to be encoded before new ones are dropped.
  public static let queueDepth = 8

  public static func isVideoPath(_ path: String) -> Bool {
    extensions.contains((path as NSString).pathExtension.lowercased())
  }

  public let path: String
  public let width: Int
  public let height: Int
  public let fps: Double
  private let file: AtomicFile
  private let deviceInfo: [String: String]
  private var handle: OpaquePointer?

  private enum Content {
    case jpeg([UInt8])
    case pixels(ImageBuffer)
  }

  private struct Job {
    var content: Content
    var t: Double
  }

  /// The frames for the encoder thread: `queueDepth` at most, dropped and
  /// counted when full (a camera) or waited for (a file).
  private let queue: BoundedHandoff<Job, Never>
  /// Buffers for copies of raw frames, taken by `append` and given back once
  /// encoded. It holds them all, so giving one back never waits.
  private let spareBuffers: BoundedHandoff<ImageBuffer, Never>
  private let dropsWhenBehind: Bool
  /// The encoder's state, shared with `finish` and the counters.
  private let condition = NSCondition()
  private var threadDone = false
  private var finished = false
  private var failure: CaptureError?
  private var times: [Double] = []
  /// Frames dropped besides those the full queue dropped: of another size,
  /// without a spare buffer, undecodable.
  private var rejected = 0

  /// Starts a recording of `width`×`height` frames at `path`. `crf` is x264's
  /// quality (0 lossless, 23 its default, 51 worst), `preset` its speed.
  public init(
    path: String, width: Int, height: Int, fps: Double, deviceInfo: [String: String] = [:], crf: Int = 23,
    preset: String = "ultrafast", dropsWhenBehind: Bool = true
  ) throws(CaptureError) {
    guard width >= 2, height >= 2, width <= 16384, height <= 16384 else {
      throw CaptureError(.unsupportedFormat, source: path, "cannot record frames of \(width)×\(height)")
    }
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
      throw CaptureError(.io, source: path, "is a folder, not a file", help: "give a file name such as clip.mp4")
    }
    self.path = path
    self.width = width
    self.height = height
    self.fps = fps.isFinite && fps > 0 ? fps : 30
    self.deviceInfo = deviceInfo
    self.dropsWhenBehind = dropsWhenBehind
    queue = BoundedHandoff(capacity: Self.queueDepth, whenFull: dropsWhenBehind ? .dropNewest : .waitForRoom)
    spareBuffers = BoundedHandoff(
      capacity: Self.queueDepth, whenFull: .waitForRoom,
      holding: (0..<Self.queueDepth).map { _ in ImageBuffer(width: width, height: height, format: .yuv420p) })
    file = try RecordingFiles.begin(path)
    // FFmpeg opens the temporary file by its name.
    file.releaseDescriptor()
    let temporary = file.temporaryPath
    var message = [CChar](repeating: 0, count: 512)
    var handle: OpaquePointer?
    let rate = self.fps
    let status = message.withUnsafeMutableBufferPointer {
      wb_video_writer_open(
        temporary, path, Int32(width), Int32(height), rate, Int32(crf), preset, &handle, $0.baseAddress, $0.count)
    }
    guard status == 0, let handle else {
      file.abandon()
      throw Self.error(status, cText(message), path: path)
    }
    self.handle = handle
    let thread = Thread { [self] in encodeLoop() }
    thread.name = "workbench-encode"
    thread.start()
  }

  deinit {
    // Never finished by its owner: keep what was recorded rather than lose it.
    try? finish()
  }

  /// Frames encoded so far.
  public var framesWritten: Int {
    condition.lock()
    defer { condition.unlock() }
    return times.count
  }

  /// Frames dropped because the encoder was behind.
  public var framesDropped: Int {
    condition.lock()
    defer { condition.unlock() }
    return rejected + queue.dropped
  }

  /// Queues one JPEG frame shown at `t` seconds; never waits for the encoder.
  /// Throws once writing has failed (a full disk), with that failure.
  public func append(jpeg: [UInt8], t: Double) throws(CaptureError) {
    let open = dropsWhenBehind ? !queue.isClosed : queue.waitForRoom()
    try throwIfFailed()
    guard open else { return }
    queue.put(Job(content: .jpeg(jpeg), t: t))
  }

  /// Queues a copy of `image` (yuv420p, rgb8 or gray8 of the recording's size) shown at `t`.
  public func append(image: ImageBuffer, t: Double) throws(CaptureError) {
    let spare = spareBuffer()
    var unused = spare
    defer { if let unused { spareBuffers.put(unused) } }
    try throwIfFailed()
    guard !queue.isClosed else { return }
    guard image.width == width, image.height == height, let copy = spare else {
      countRejected()
      return
    }
    copy.reshape(width: image.width, height: image.height, format: image.format)
    copy.pixels.update(from: image.pixels, count: image.byteCount)
    // Dropped when the queue is full (a camera's frame), refused once finished.
    if queue.put(Job(content: .pixels(copy), t: t)) == .accepted { unused = nil }
  }

  /// A buffer to copy a raw frame into: for frames from a camera, one if
  /// there is one; for frames from a file, once the queue has room and the
  /// encoder has given one back (nil once finished).
  private func spareBuffer() -> ImageBuffer? {
    if dropsWhenBehind { return spareBuffers.takeIfReady() }
    guard queue.waitForRoom() else { return nil }
    return spareBuffers.take()?.element
  }

  private func throwIfFailed() throws(CaptureError) {
    condition.lock()
    defer { condition.unlock() }
    if let failure { throw failure }
  }

  private func countRejected() {
    condition.lock()
    rejected += 1
    condition.unlock()
  }

  private func encodeLoop() {
    defer {
      condition.lock()
      threadDone = true
      condition.broadcast()
      condition.unlock()
    }
    let decoder = JPEGDecoder()
    let rgb = ImageBuffer(format: .rgb8)
    let gray = ImageBuffer(width: width, height: height, format: .yuv420p)
    var message = [CChar](repeating: 0, count: 512)
    // Until `finish` closes the queue and what it holds is encoded.
    while let job = queue.take()?.element {
      condition.lock()
      let stopped = failure != nil
      condition.unlock()
      var status: Int32 = 0
      var problem: String?
      if !stopped, let handle {
        switch job.content {
        case .jpeg(let bytes):
          do {
            try decoder.decode(bytes, into: rgb, format: .rgb8)
            if rgb.width == width, rgb.height == height {
              status = message.withUnsafeMutableBufferPointer {
                wb_video_writer_write(
                  handle, rgb.pixels, Int32(WB_PIXELS_RGB24), job.t, $0.baseAddress, $0.count)
              }
            } else {
              problem = "size"
            }
          } catch {
            problem = "undecodable"
          }
        case .pixels(let image):
          var pixels = image
          if image.format == .gray8 {
            gray.pixels.update(from: image.pixels, count: width * height)
            (gray.pixels + width * height).update(repeating: 128, count: gray.byteCount - width * height)
            pixels = gray
          }
          let format = pixels.format == .rgb8 ? WB_PIXELS_RGB24 : WB_PIXELS_YUV420P
          status = message.withUnsafeMutableBufferPointer {
            wb_video_writer_write(handle, pixels.pixels, Int32(format), job.t, $0.baseAddress, $0.count)
          }
        }
      }
      if case .pixels(let image) = job.content { spareBuffers.put(image) }
      condition.lock()
      if status != 0, failure == nil {
        failure = Self.error(status, cText(message), path: path)
      } else if status == 0, !stopped, problem == nil {
        times.append(job.t)
      } else if problem != nil {
        rejected += 1
      }
      condition.unlock()
    }
  }

  /// Encodes what is queued, writes the trailer and the sidecar, and moves
  /// the recording into place. Safe to call again (it does nothing then).
  public func finish() throws(CaptureError) {
    condition.lock()
    if finished {
      condition.unlock()
      return
    }
    finished = true
    condition.unlock()
    queue.close()
    condition.lock()
    while !threadDone { condition.wait() }
    let writeFailure = failure
    let frameTimes = times
    condition.unlock()
    guard let handle else { return }
    var message = [CChar](repeating: 0, count: 512)
    let status = message.withUnsafeMutableBufferPointer { wb_video_writer_finish(handle, $0.baseAddress, $0.count) }
    wb_video_writer_free(handle)
    self.handle = nil
    if frameTimes.isEmpty {
      file.abandon()
      if status != 0 { throw Self.error(status, cText(message), path: path) }
      if let writeFailure { throw writeFailure }
      return
    }
    // Fragmented MP4 and Matroska play without their trailer: when it could
    // not be written (a full disk), the fragments written are kept all the same.
    let trailerFailure = status != 0 ? Self.error(status, cText(message), path: path) : nil
    let sidecarPath = TimestampsSidecar.path(forRecording: path, isFolder: false)
    var sidecarFailure: CaptureError?
    do {
      try sidecar(frameTimes).write(to: sidecarPath)
    } catch {
      // The video's own timestamps still give the frames' times.
      sidecarFailure = CaptureError(
        .io, source: path, "could not write its timestamps sidecar: \(error.message)",
        help: "free some space; the recording is kept, and its frames' times are in the file itself")
    }
    do {
      try file.commit()
    } catch {
      throw CaptureError(
        .io, source: path, "could not move the recording into place: \(error.reason)",
        help: "the recording is at \(file.temporaryPath)")
    }
    // The frames before a full disk are kept and play; the failure still counts.
    if let failure = writeFailure ?? trailerFailure ?? sidecarFailure { throw failure }
  }

  private func sidecar(_ frameTimes: [Double]) -> TimestampsSidecar {
    var header = JSONObject([
      ("writer", .string("workbench VideoFileWriter (H.264)")), ("width", .integer(Int64(width))),
      ("height", .integer(Int64(height))), ("fps", .number(fps)), ("frames", .integer(Int64(frameTimes.count))),
    ])
    for key in deviceInfo.keys.sorted() where header[key] == nil { header[key] = .string(deviceInfo[key]!) }
    var times: [Int64: Double] = [:]
    for (frame, time) in frameTimes.enumerated() { times[Int64(frame)] = time }
    return TimestampsSidecar(header: header, times: times)
  }

  static func error(_ status: Int32, _ message: String, path: String) -> CaptureError {
    if let reason = FFmpegLibraries.loadError {
      return CaptureError(
        .io, source: path, "FFmpeg's libraries cannot be loaded to write it: \(reason)",
        help: FFmpegLibraries.installAdvice)
    }
    let full = wb_ffmpeg_error_is_full(status) != 0
    return CaptureError(
      .io, source: path, message.isEmpty ? "cannot write the video (FFmpeg error \(status))" : message,
      help: full ? "the disk is full: free some space and record again" : "check the folder and the disk")
  }
}
