import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Opens recordings of frames: a folder of JPEG files, an MJPEG file, an AVI
/// with Motion JPEG video, a YUV4MPEG2 file, or any video file FFmpeg reads
/// (MP4, MOV, MKV, WebM, AVI with other codecs; `VideoFileSource`).
///
/// Frames come out in file order, each with its 0-based position as
/// `index` and a time `t` in seconds that is the same on every read:
/// - from the timestamps sidecar when there is one (see `TimestampsSidecar`);
/// - else, for a video read through FFmpeg, from each frame's presentation
///   timestamp;
/// - else from the container's own rate (AVI dwRate/dwScale of the video
///   stream, Y4M `F<num>:<den>`), starting at 0;
/// - else from `fps`, else at 30 frames per second.
/// `info.details["timing"]` says which (`sidecar`, `header`, `fps`,
/// `default`).
///
/// Damage is reported, not fatal: a frame that is cut short or corrupt comes
/// out as `.unreadable(reason:)` at its position and reading goes on where
/// the container allows. Only a file that cannot be opened or read throws.
public enum RecordingSource {
  /// The formats a recording can have, found from its magic bytes first and
  /// its name second.
  public enum Format: String, Sendable, CaseIterable {
    case jpegFolder = "jpeg-folder"
    case mjpeg
    case avi
    case y4m
    /// Any other video file, read through FFmpeg.
    case video
  }

  /// What to tell a user whose file is not one of these.
  static let supportedFormatsHelp =
    "a recording is a folder of .jpg/.jpeg frames, an .mjpeg/.mjpg file (JPEGs one after another), "
    + "a 4:2:0 .y4m file, or a video file FFmpeg reads (MP4, MOV, MKV, WebM, AVI); "
    + "workbench probe FILE says what is in a file"

  /// Which reader opens a file.
  public enum Reader: Sendable {
    /// The built-in reader of the format when there is one (AVI of Motion
    /// JPEG, MJPEG, Y4M), FFmpeg for everything else.
    case automatic
    /// FFmpeg for every file, the built-in formats too (to compare the two).
    case ffmpeg
  }

  /// Opens the recording at `path`. `fps` sets the frame rate of a recording
  /// whose container has none (a folder, an MJPEG file); a timestamps
  /// sidecar beside the recording wins over both.
  public static func open(path: String, fps: Double? = nil, reader: Reader = .automatic) throws(CaptureError)
    -> any FrameSource
  {
    if let fps, !(fps.isFinite && fps > 0) {
      throw CaptureError(
        .invalidRecording, source: path, "the frame rate must be a positive number of frames per second, not \(fps)",
        help: "give a rate such as 30 or 29.97")
    }
    var status = stat()
    guard stat(path, &status) == 0 else { throw RecordingFile.openError(path: path, errno: errno) }
    if status.st_mode & S_IFMT == S_IFDIR {
      let context = try RecordingContext(path: path, fps: fps, isFolder: true)
      return try JPEGFolderSource(context: context)
    }
    // A device or a pipe has no size to read a recording by (/dev/zero
    // would pass for "empty"): only regular files are recordings.
    if status.st_mode & S_IFMT == S_IFIFO {
      throw CaptureError(
        .invalidRecording, source: path, "is a pipe, not a recording file",
        help: "run --input reads a pipe as a stream of measurements (a JSON Lines trace, docs/traces.md); "
          + "a recording is read from a file")
    }
    if status.st_mode & S_IFMT != S_IFREG {
      let kind = status.st_mode & S_IFMT == S_IFCHR ? "a character device" : "not a regular file"
      throw CaptureError(
        .invalidRecording, source: path, "is \(kind), not a recording file",
        help: "a camera is given with --camera DEVICE (workbench devices lists them); " + supportedFormatsHelp)
    }
    let file = try RecordingFile(path: path)
    let format = reader == .ffmpeg ? .video : try detectFormat(of: file)
    let context = try RecordingContext(path: path, fps: fps, isFolder: false)
    switch format {
    case .mjpeg: return try MJPEGFileSource(file: file, context: context)
    case .avi:
      do {
        return try AVIFileSource(file: file, context: context)
      } catch  where error.kind == .unsupportedFormat {
        // An AVI of another codec than Motion JPEG: FFmpeg decodes it.
        file.close()
        return try VideoFileSource(path: path, context: context)
      }
    case .y4m: return try Y4MFileSource(file: file, context: context)
    case .video:
      let prefix = try? file.read(at: 0, count: 16)
      file.close()
      return try openVideo(path: path, prefix: prefix, context: context)
    case .jpegFolder: preconditionFailure("a file is never a folder")
    }
  }

  /// A file none of the built-in readers knows, through FFmpeg; when FFmpeg
  /// cannot read it either, the error says what its first bytes look like.
  private static func openVideo(path: String, prefix: [UInt8]?, context: RecordingContext) throws(CaptureError)
    -> any FrameSource
  {
    do {
      return try VideoFileSource(path: path, context: context)
    } catch  where error.kind == .invalidRecording && error.help == supportedFormatsHelp {
      guard let prefix else { throw error }
      throw CaptureError(
        .invalidRecording, source: path, "unknown recording format: \(describe(prefix: prefix)); \(error.message)",
        help: supportedFormatsHelp)
    }
  }

  /// The format of an open recording file, from its first bytes; its
  /// extension decides only when the bytes say nothing.
  static func detectFormat(of file: RecordingFile) throws(CaptureError) -> Format {
    let path = file.path
    guard file.size > 0 else {
      throw CaptureError(.invalidRecording, source: path, "the file is empty", help: supportedFormatsHelp)
    }
    let prefix = try file.read(at: 0, count: 16)
    let fileExtension = (path as NSString).pathExtension.lowercased()
    if prefix.starts(with: Array("RIFF".utf8)) {
      let riffType = prefix.count >= 12 ? String(decoding: prefix[8..<12], as: UTF8.self) : ""
      if riffType == "AVI " { return .avi }
      throw CaptureError(
        .invalidRecording, source: path, "a RIFF file of type '\(riffType)', not an AVI video",
        help: supportedFormatsHelp)
    }
    if prefix.starts(with: Array("YUV4MPEG2".utf8)) { return .y4m }
    if prefix.starts(with: MJPEGMarkers.startOfImage) { return .mjpeg }
    switch fileExtension {
    case "y4m":
      throw CaptureError(
        .invalidRecording, source: path, "not a Y4M file: it does not start with YUV4MPEG2",
        help: supportedFormatsHelp)
    case "mjpeg", "mjpg":
      // Some MJPEG dumps start with a few bytes of stream framing.
      let head = try file.read(at: 0, count: 1 << 20)
      let found = head.withUnsafeBufferPointer { MJPEGMarkers.findStartOfImage(in: $0, from: 0, to: $0.count) }
      if found != nil { return .mjpeg }
      throw CaptureError(
        .invalidRecording, source: path, "no JPEG image in its first MiB (no FFD8FF start marker)",
        help: supportedFormatsHelp)
    default:
      // Decided by content: FFmpeg probes the file.
      return .video
    }
  }

  /// What the first bytes of an unknown file look like, to name common video files.
  private static func describe(prefix: [UInt8]) -> String {
    if prefix.count >= 8, String(decoding: prefix[4..<8], as: UTF8.self) == "ftyp" {
      return "it looks like an MP4/MOV file"
    }
    if prefix.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { return "it looks like a Matroska/WebM file" }
    if prefix.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "it looks like a PNG image" }
    let shown = prefix.prefix(8).map { String($0, radix: 16, uppercase: true) }.map {
      $0.count == 1 ? "0" + $0 : $0
    }
    return "it starts with the bytes \(shown.joined(separator: " "))"
  }

  /// Orders names as people do: digit runs compare by their value, so
  /// `frame2.jpg` comes before `frame10.jpg`; ties fall back to plain order
  /// so that the order never depends on the file system.
  static func naturallyOrdered(_ left: String, _ right: String) -> Bool {
    let leftParts = naturalParts(left)
    let rightParts = naturalParts(right)
    for (leftPart, rightPart) in zip(leftParts, rightParts) where leftPart != rightPart {
      switch (leftPart, rightPart) {
      case (.number(let leftDigits), .number(let rightDigits)):
        let leftValue = leftDigits.drop { $0 == "0" }
        let rightValue = rightDigits.drop { $0 == "0" }
        if leftValue.count != rightValue.count { return leftValue.count < rightValue.count }
        if leftValue != rightValue {
          return leftValue.unicodeScalars.lexicographicallyPrecedes(rightValue.unicodeScalars)
        }
        // Same value: fewer leading zeros first, then plain order below.
        if leftDigits.count != rightDigits.count { return leftDigits.count < rightDigits.count }
      case (.text(let leftText), .text(let rightText)):
        return leftText.unicodeScalars.lexicographicallyPrecedes(rightText.unicodeScalars)
      case (.number, .text): return true
      case (.text, .number): return false
      }
    }
    if leftParts.count != rightParts.count { return leftParts.count < rightParts.count }
    return left.unicodeScalars.lexicographicallyPrecedes(right.unicodeScalars)
  }

  private enum NaturalPart: Equatable {
    case text(Substring)
    case number(Substring)
  }

  private static func naturalParts(_ name: String) -> [NaturalPart] {
    var parts: [NaturalPart] = []
    var start = name.startIndex
    while start < name.endIndex {
      let isDigit = name[start].isASCII && name[start].isNumber
      var end = name.index(after: start)
      while end < name.endIndex, (name[end].isASCII && name[end].isNumber) == isDigit { end = name.index(after: end) }
      parts.append(isDigit ? .number(name[start..<end]) : .text(name[start..<end]))
      start = end
    }
    return parts
  }
}

/// What every recording source needs besides its file: the name to report,
/// the rate the caller gave and the sidecar, read once at open.
struct RecordingContext {
  let path: String
  let fps: Double?
  let sidecarPath: String
  let sidecar: TimestampsSidecar?

  init(path: String, fps: Double?, isFolder: Bool) throws(CaptureError) {
    self.path = path
    self.fps = fps
    sidecarPath = TimestampsSidecar.path(forRecording: path, isFolder: isFolder)
    sidecar = try TimestampsSidecar.read(path: sidecarPath, recording: path)
  }

  /// The frame times, given the container's rate if it has one.
  func timeline(header: (frames: Double, perSeconds: Double)? = nil) -> TimestampsTimeline {
    TimestampsTimeline(header: header, fps: fps, sidecar: sidecar)
  }

  /// Details every recording reports: where its times come from, the
  /// sidecar's header fields, then the format's own.
  func details(timeline: TimestampsTimeline, _ formatDetails: [String: String] = [:]) -> [String: String] {
    var details = formatDetails
    details["timing"] = timeline.origin.rawValue
    if let sidecar {
      details["timestamps"] = sidecarPath
      for (key, value) in sidecar.header where details[key] == nil {
        details[key] = value.stringValue ?? value.jsonText
      }
    }
    return details
  }
}
