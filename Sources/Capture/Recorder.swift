import FileSystem
import Foundation
import Imaging

#if canImport(Glibc)
  import Glibc
#endif

/// Which frames of a run a recording keeps (the HKID and LUNA ID SDKs offer
/// each of these).
public enum RecordPolicy: String, Sendable, CaseIterable {
  /// Every frame the flow saw.
  case always
  /// Every frame, kept only when the flow failed.
  case failed
  /// Every frame, kept only when the flow passed.
  case passed
  /// Only frames with a detection (a face or a card was found).
  case detections
  /// Every frame, kept only when a face was seen in at least one of them
  /// (LUNA ID for iOS: `saveOnlyFaceVideo`).
  case withFace = "with-face"
  /// The same rule under LUNA ID for Android's name (`ignoreVideoWithoutFace`).
  case ignoreWithoutFace = "ignore-without-face"

  /// Whether the whole recording is kept only when a face was seen.
  public var needsAFace: Bool { self == .withFace || self == .ignoreWithoutFace }

  /// Whether the recording is written beside its path first, because the
  /// policy decides at the end whether it stays.
  public var decidesAtTheEnd: Bool { self == .failed || self == .passed || needsAFace }

  /// The measurements the policy reads besides the flow's own.
  public var measurements: [String] { needsAFace ? ["face.count"] : [] }
}

/// Writes the frames of a session to an MJPEG AVI, or to H.264 video when
/// the path ends in `.mp4`, `.mov`, `.mkv` or `.m4v` (`VideoFileWriter`),
/// with its timestamps sidecar. For AVI, raw frames are encoded to JPEG and
/// JPEG frames are kept byte for byte. The file is created at the first
/// frame, when its size is known, and is complete at every `finish()`: on
/// Ctrl-C, on camera loss, on errors.
public final class FrameRecorder {
  public let path: String
  /// Where frames go until the run decides: the final path, or a pending
  /// one beside it when a policy may still throw the recording away (so an
  /// older file at `path` is never touched unless the new one is kept).
  private let writingPath: String
  private let fps: Double
  private let deviceInfo: [String: String]
  private var writer: AVIWriter?
  private var videoWriter: VideoFileWriter?
  private let isVideo: Bool
  private let decoder = JPEGDecoder()
  private let encoder = JPEGEncoder()
  private let rgb = ImageBuffer(format: .rgb8)
  private var jpeg: [UInt8] = []
  public private(set) var framesWritten = 0
  /// Frames a video recording dropped because its encoder was behind (an AVI drops none).
  public private(set) var framesDropped = 0
  /// Whether this recorder's file and its sidecar are at `path`, complete:
  /// after a `finish()` that had frames to write.
  public private(set) var isInPlace = false

  /// Whether frames come from a camera: a video recording then drops the
  /// frames its encoder cannot keep up with, where a file's frames wait for it.
  private let live: Bool

  public init(
    path: String, fps: Double, deviceInfo: [String: String] = [:], deferred: Bool = false, live: Bool = false
  ) {
    self.path = path
    self.live = live
    let folder = (path as NSString).deletingLastPathComponent
    let name = (path as NSString).lastPathComponent
    isVideo = VideoFileWriter.isVideoPath(path)
    // The pending name keeps the extension, which names the container.
    let pathExtension = isVideo ? (path as NSString).pathExtension : "avi"
    writingPath =
      deferred
      ? (folder.isEmpty ? "" : folder + "/")
        + ".\(name).pending-\(ProcessInfo.processInfo.processIdentifier).\(pathExtension)"
      : path
    self.fps = fps > 0 ? fps : 30
    self.deviceInfo = deviceInfo
  }

  /// Fails now, before any frame, when `path` cannot become a recording:
  /// its folder is missing, or it is a folder.
  public static func checkWritable(_ path: String) throws(CaptureError) {
    let folder = (path as NSString).deletingLastPathComponent
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder.isEmpty ? "." : folder, isDirectory: &isDirectory),
      isDirectory.boolValue
    else {
      throw CaptureError(
        .io, source: path, "the folder \(folder) does not exist", help: "create it first or choose another path")
    }
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
      throw CaptureError(.io, source: path, "is a folder, not a file", help: "give a file name such as session.avi")
    }
    guard FileManager.default.isWritableFile(atPath: folder.isEmpty ? "." : folder) else {
      throw CaptureError(.io, source: path, "the folder is not writable", help: "check its permissions")
    }
  }

  /// The sidecar of the recording (see `TimestampsSidecar`).
  public var sidecarPath: String { TimestampsSidecar.path(forRecording: path, isFolder: false) }
  private var writingSidecarPath: String { TimestampsSidecar.path(forRecording: writingPath, isFolder: false) }

  public func record(_ frame: CapturedFrame) throws(CaptureError) {
    if isVideo {
      try recordVideo(frame)
      return
    }
    switch frame.payload {
    case .unreadable:
      return
    case .jpeg(let bytes):
      if writer == nil {
        let header: JPEGHeader
        do { header = try decoder.readHeader(bytes) } catch { return }
        try open(width: header.width, height: header.height)
      }
      try writer?.append(jpeg: bytes, t: frame.t)
    case .image(let image):
      if writer == nil { try open(width: image.width, height: image.height) }
      do {
        if image.format == .yuv420p {
          try ImageConversion.yuv420pToRGB8(image, into: rgb)
          try encoder.encode(rgb, quality: 90, into: &jpeg)
        } else {
          try encoder.encode(image, quality: 90, into: &jpeg)
        }
      } catch {
        throw CaptureError(.io, source: path, "cannot encode frame \(frame.index): \(error)")
      }
      try writer?.append(jpeg: jpeg, t: frame.t)
    }
    framesWritten += 1
  }

  /// A video recording queues the frame for its encoder thread: JPEG bytes
  /// as they are (decoded off the loop), raw pixels copied.
  private func recordVideo(_ frame: CapturedFrame) throws(CaptureError) {
    switch frame.payload {
    case .unreadable:
      return
    case .jpeg(let bytes):
      if videoWriter == nil {
        let header: JPEGHeader
        do { header = try decoder.readHeader(bytes) } catch { return }
        try openVideo(width: header.width, height: header.height)
      }
      try videoWriter?.append(jpeg: bytes, t: frame.t)
    case .image(let image):
      if videoWriter == nil { try openVideo(width: image.width, height: image.height) }
      try videoWriter?.append(image: image, t: frame.t)
    }
    framesWritten += 1
  }

  private func openVideo(width: Int, height: Int) throws(CaptureError) {
    videoWriter = try VideoFileWriter(
      path: writingPath, width: width, height: height, fps: fps, deviceInfo: deviceInfo, dropsWhenBehind: live)
  }

  private func open(width: Int, height: Int) throws(CaptureError) {
    writer = try AVIWriter(path: writingPath, width: width, height: height, fps: fps, deviceInfo: deviceInfo)
  }

  /// Completes the file and its sidecar, and moves them into place; safe to
  /// call more than once.
  public func finish() throws(CaptureError) {
    defer { framesWritten -= writer?.framesDroppedAtFinish ?? 0 }
    if let videoWriter {
      defer {
        framesWritten = videoWriter.framesWritten
        framesDropped = videoWriter.framesDropped
      }
      try videoWriter.finish()
      guard videoWriter.framesWritten > 0 else { return }
    }
    try writer?.finish()
    guard writer != nil || videoWriter != nil, !isInPlace else { return }
    if writingPath != path {
      guard FileManager.default.fileExists(atPath: writingPath) else { return }
      for (from, to) in [(writingPath, path), (writingSidecarPath, sidecarPath)] {
        do {
          try AtomicFile.move(from, over: to)
        } catch {
          throw CaptureError(.io, source: path, "cannot move the recording into place: \(error.reason)")
        }
      }
    }
    isInPlace = true
  }

  /// Finishes and deletes what this recorder wrote (a policy said not to
  /// keep it); a file already at `path` stays.
  public func discard() {
    try? writer?.finish()
    try? videoWriter?.finish()
    isInPlace = false
    guard writingPath != path else {
      try? FileManager.default.removeItem(atPath: path)
      try? FileManager.default.removeItem(atPath: sidecarPath)
      return
    }
    try? FileManager.default.removeItem(atPath: writingPath)
    try? FileManager.default.removeItem(atPath: writingSidecarPath)
  }
}

/// Copies frames from a source into a recorder until the source ends, a
/// limit is reached or `shouldStop` says so (Ctrl-C). The recording is
/// finished in every case.
public enum RecordingLoop {
  public struct Summary: Sendable {
    public var frames: Int
    /// "end of input", "frame limit", "time limit", "interrupted", "input
    /// error" or "write error".
    public var ending: String
    public var error: CaptureError?
    /// Whether the error was the recording's, not the input's.
    public var failedWriting = false
  }

  public static func run(
    from source: any FrameSource, into recorder: FrameRecorder, maximumFrames: Int? = nil,
    maximumSeconds: Double? = nil, shouldStop: () -> Bool
  ) -> Summary {
    var firstT: Double?
    var ending = "end of input"
    var failure: CaptureError?
    var failedWriting = false
    while true {
      if shouldStop() {
        ending = "interrupted"
        break
      }
      if let maximumFrames, recorder.framesWritten >= maximumFrames {
        ending = "frame limit"
        break
      }
      let frame: CapturedFrame
      do {
        guard let next = try source.next() else { break }
        frame = next
      } catch {
        failure = error
        ending = "input error"
        break
      }
      if firstT == nil { firstT = frame.t }
      if let maximumSeconds, let firstT, frame.t - firstT >= maximumSeconds {
        ending = "time limit"
        break
      }
      do {
        try recorder.record(frame)
      } catch {
        failure = error
        failedWriting = true
        ending = "write error"
        break
      }
    }
    do {
      try recorder.finish()
    } catch {
      if failure == nil {
        failure = error
        failedWriting = true
        ending = "write error"
      }
    }
    return Summary(frames: recorder.framesWritten, ending: ending, error: failure, failedWriting: failedWriting)
  }
}
