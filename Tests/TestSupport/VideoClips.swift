import Foundation

/// Small video clips made by Debian's `ffmpeg` command for the tests that
/// read video files (never downloaded), and `ffprobe`'s view of a file to
/// compare with workbench's. Each clip is made once per test process.
public enum VideoClips {
  public static let ffmpeg: String? = Browser.executable(["ffmpeg"])
  public static let ffprobe: String? = Browser.executable(["ffprobe"])
  public static var available: Bool { ffmpeg != nil && ffprobe != nil }
  public static let skipReason = "needs the ffmpeg and ffprobe commands (scripts/install-test-deps)"

  public enum Clip: String, CaseIterable, Sendable {
    /// H.264 in MP4, 320×240, 30 fps, 2 s, the index at the front (+faststart).
    case h264 = "h264.mp4"
    /// The same stream with a display matrix that turns it 90° clockwise, as a phone
    /// writes a portrait video (ffprobe: rotation -90).
    case rotated = "rotated.mp4"
    /// The H.264 clip whose display matrix mirrors it left to right, as a
    /// front camera's video may say (its track header's matrix rewritten).
    case mirrored = "mirrored.mp4"
    /// The H.264 clip whose display matrix transposes it: a quarter turn and a mirror.
    case transposed = "transposed.mp4"
    /// HEVC in MOV whose frames come about 1/24 s and 1/30 s apart in turn, as phones record.
    case variableRateHEVC = "variable.mov"
    /// VP9 in WebM.
    case vp9 = "vp9.webm"
    /// H.264 in MP4 with its index at the end, cut in half: the index is lost.
    case cutIndexAtEnd = "cut-end.mp4"
    /// H.264 in MP4 with its index at the front, cut at 60%: the first frames are there.
    case cutIndexAtFront = "cut-front.mp4"
    /// Audio only (AAC in MP4).
    case audioOnly = "audio.m4a"
    /// Motion JPEG in Matroska with the header of one frame in the middle overwritten.
    case corruptFrame = "corrupt.mkv"
    /// Motion JPEG in Matroska whose first six frames have their headers
    /// overwritten: more damaged frames than the reader decodes ahead.
    case damagedRun = "damaged-run.mkv"
    /// H.264 in Matroska whose codec ID is renamed to one FFmpeg does not know.
    case unknownCodec = "unknown-codec.mkv"
    /// Motion JPEG in AVI, which the built-in AVI reader reads too.
    case motionJPEGAVI = "mjpeg.avi"
  }

  private static let folder: String = {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "workbench-video-clips-\(ProcessInfo.processInfo.processIdentifier)"
    ).path
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }()
  private static let lock = NSRecursiveLock()

  /// The clip's path, made on first use.
  public static func path(_ clip: Clip) throws -> String {
    lock.lock()
    defer { lock.unlock() }
    let path = folder + "/" + clip.rawValue
    if FileManager.default.fileExists(atPath: path) { return path }
    try make(clip, at: path)
    return path
  }

  /// `input` encoded by ffmpeg with `arguments` into `name` (the extension
  /// picks the container), made once per test process.
  public static func make(from input: String, _ arguments: [String], name: String) throws -> String {
    lock.lock()
    defer { lock.unlock() }
    let path = folder + "/" + name
    if FileManager.default.fileExists(atPath: path) { return path }
    let partial = path + ".partial" + (path as NSString).pathExtension.withDot
    try encode(["-i", input] + arguments, to: partial)
    try FileManager.default.moveItem(atPath: partial, toPath: path)
    return path
  }

  private static let source = ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=2"]

  private static func make(_ clip: Clip, at path: String) throws {
    let partial = path + ".partial" + (path as NSString).pathExtension.withDot
    defer { try? FileManager.default.removeItem(atPath: partial) }
    switch clip {
    case .h264:
      try encode(
        source + ["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-movflags", "+faststart"],
        to: partial)
    case .rotated:
      // A rotation sticks only on a stream copy.
      try encode(["-i", try Self.path(.h264), "-c", "copy", "-metadata:s:v:0", "rotate=270"], to: partial)
    case .mirrored:
      // a = -1, x = the width: x' = 320 - x.
      try FileManager.default.copyItem(atPath: try Self.path(.h264), toPath: partial)
      try setTrackMatrix(partial, [-1, 0, 0, 1], translation: (320, 0))
    case .transposed:
      try FileManager.default.copyItem(atPath: try Self.path(.h264), toPath: partial)
      try setTrackMatrix(partial, [0, 1, 1, 0], translation: (0, 0))
    case .variableRateHEVC:
      try encode(
        source + [
          "-vf", "settb=1/600,setpts=(floor((N+1)/2)/24+floor(N/2)/30)/TB", "-fps_mode", "passthrough",
          "-enc_time_base", "1/600", "-video_track_timescale", "600", "-c:v", "libx265", "-preset", "ultrafast",
          "-x265-params", "log-level=error", "-pix_fmt", "yuv420p", "-tag:v", "hvc1",
        ], to: partial)
    case .vp9:
      try encode(
        source + ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "300k"], to: partial)
    case .cutIndexAtEnd:
      try encode(source + ["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p"], to: partial)
      try truncate(partial, keeping: 0.5)
    case .cutIndexAtFront:
      try FileManager.default.copyItem(atPath: try Self.path(.h264), toPath: partial)
      try truncate(partial, keeping: 0.6)
    case .audioOnly:
      try encode(["-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:a", "aac"], to: partial)
    case .corruptFrame:
      try encode(source + ["-c:v", "mjpeg", "-q:v", "3"], to: partial)
      try overwriteMiddle(partial)
    case .damagedRun:
      try encode(source + ["-c:v", "mjpeg", "-q:v", "3"], to: partial)
      try overwriteMiddle(partial, frames: 6, fromTheStart: true)
    case .unknownCodec:
      try encode(source + ["-c:v", "libx264", "-preset", "veryfast"], to: partial)
      var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: partial)))
      let known = Array("V_MPEG4/ISO/AVC".utf8)
      guard
        let start = (0...(bytes.count - known.count)).first(where: {
          bytes[$0..<($0 + known.count)].elementsEqual(known)
        })
      else { throw ClipError("no H.264 codec ID in \(partial)") }
      bytes.replaceSubrange(start..<(start + known.count), with: Array("V_WORKBENCH/XYZ".utf8))
      try Data(bytes).write(to: URL(fileURLWithPath: partial))
    case .motionJPEGAVI:
      try encode(source + ["-c:v", "mjpeg", "-q:v", "3"], to: partial)
    }
    try FileManager.default.moveItem(atPath: partial, toPath: path)
  }

  private static func encode(_ arguments: [String], to path: String) throws {
    guard let ffmpeg else { throw ClipError("ffmpeg is not installed") }
    let folder = try TemporaryFolder(prefix: "workbench-ffmpeg")
    defer { folder.remove() }
    let run = try Browser.run(
      ffmpeg, ["-hide_banner", "-loglevel", "error", "-nostdin", "-y"] + arguments + [path], folder: folder)
    guard run.status == 0 else { throw ClipError("ffmpeg \(arguments.joined(separator: " ")) failed: \(run.stderr)") }
  }

  /// Rewrites the matrix of the first track header (`tkhd`, version 0) of an
  /// MP4: `a b c d` as whole numbers, the translation in pixels, both 16.16 fixed point.
  private static func setTrackMatrix(_ path: String, _ abcd: [Int32], translation: (Int32, Int32)) throws {
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    let name = Array("tkhd".utf8)
    guard let at = (0..<(bytes.count - 100)).first(where: { Array(bytes[$0..<$0 + 4]) == name }), bytes[at + 4] == 0
    else { throw ClipError("no version 0 tkhd in \(path)") }
    // After the type: version and flags, 5 fields of 4 bytes, 8 reserved, layer, group, volume, 2 reserved.
    let matrix = at + 4 + 40
    let values: [Int32] = [
      abcd[0] << 16, abcd[1] << 16, 0, abcd[2] << 16, abcd[3] << 16, 0, translation.0 << 16, translation.1 << 16,
      1 << 30,
    ]
    for (index, value) in values.enumerated() {
      withUnsafeBytes(of: value.bigEndian) {
        bytes.replaceSubrange((matrix + 4 * index)..<(matrix + 4 * index + 4), with: $0)
      }
    }
    try Data(bytes).write(to: URL(fileURLWithPath: path))
  }

  private static func truncate(_ path: String, keeping fraction: Double) throws {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    try data.prefix(Int(Double(data.count) * fraction)).write(to: URL(fileURLWithPath: path))
  }

  /// 600 bytes of 0x55 just after each of the first `frames` JPEG starts past
  /// the middle of the file (or from its start): those frames have no header
  /// left, and the container is intact.
  private static func overwriteMiddle(_ path: String, frames: Int = 1, fromTheStart: Bool = false) throws {
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    var start = fromTheStart ? 0 : bytes.count / 2
    for _ in 0..<frames {
      while start + 3 < bytes.count, !(bytes[start] == 0xFF && bytes[start + 1] == 0xD8 && bytes[start + 2] == 0xFF) {
        start += 1
      }
      guard start + 602 < bytes.count else { throw ClipError("no JPEG start in the second half of \(path)") }
      bytes.replaceSubrange((start + 2)..<(start + 602), with: [UInt8](repeating: 0x55, count: 600))
      start += 602
    }
    try Data(bytes).write(to: URL(fileURLWithPath: path))
  }

  /// Every frame's presentation time as ffprobe reports it (`best_effort_timestamp_time`).
  public static func frameTimes(_ path: String) throws -> [Double] {
    guard let ffprobe else { throw ClipError("ffprobe is not installed") }
    let folder = try TemporaryFolder(prefix: "workbench-ffprobe")
    defer { folder.remove() }
    let run = try Browser.run(
      ffprobe,
      [
        "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=best_effort_timestamp_time", "-of", "csv=p=0",
        path,
      ], folder: folder)
    guard run.status == 0 else { throw ClipError("ffprobe \(path) failed: \(run.stderr)") }
    // A frame's line may end in a comma (side data): its first field is the time.
    return run.stdout.split(whereSeparator: \.isNewline).compactMap { line in
      line.split(separator: ",").first.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    }
  }

  /// One stream's fields as ffprobe reports them (`-show_streams`), by name.
  public static func streamFields(_ path: String) throws -> [String: String] {
    guard let ffprobe else { throw ClipError("ffprobe is not installed") }
    let folder = try TemporaryFolder(prefix: "workbench-ffprobe")
    defer { folder.remove() }
    let run = try Browser.run(
      ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_streams", "-show_format", "-of", "flat=s=_", path],
      folder: folder)
    guard run.status == 0 else { throw ClipError("ffprobe \(path) failed: \(run.stderr)") }
    var fields: [String: String] = [:]
    for line in run.stdout.split(whereSeparator: \.isNewline) {
      guard let equals = line.firstIndex(of: "=") else { continue }
      let value = line[line.index(after: equals)...].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
      fields[String(line[..<equals])] = value
    }
    return fields
  }

  /// The frames as FFmpeg itself decodes them (autorotated), as 8-bit luma
  /// in full range: `-pix_fmt yuvj420p`, the Y plane of each frame.
  public static func lumaFrames(_ path: String, width: Int, height: Int) throws -> [[UInt8]] {
    guard let ffmpeg else { throw ClipError("ffmpeg is not installed") }
    let folder = try TemporaryFolder(prefix: "workbench-ffmpeg")
    defer { folder.remove() }
    let raw = folder.file("frames.yuv")
    let run = try Browser.run(
      ffmpeg, ["-v", "error", "-nostdin", "-i", path, "-f", "rawvideo", "-pix_fmt", "yuvj420p", raw], folder: folder)
    guard run.status == 0 else { throw ClipError("ffmpeg decoding \(path) failed: \(run.stderr)") }
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
    let frameBytes = width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)
    return stride(from: 0, to: bytes.count - frameBytes + 1, by: frameBytes).map {
      Array(bytes[$0..<($0 + width * height)])
    }
  }

  public struct ClipError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
  }
}

extension String {
  fileprivate var withDot: String { isEmpty ? "" : "." + self }
}
