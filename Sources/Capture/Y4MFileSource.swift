import Imaging

/// What a YUV4MPEG2 stream header says.
struct Y4MHeader {
  var width: Int
  var height: Int
  /// `F<num>:<den>`: `num` frames every `den` seconds, when given and non-zero.
  var rate: (frames: Int, perSeconds: Int)?
  /// The header says `F0:0`: the rate is unknown.
  var rateUnknown = false
  /// The `C` tag without its `C` (`420jpeg`), or nil when there is none.
  var chroma: String?
  /// `I`: `p` progressive, `t`/`b` interlaced, `m` mixed, `?` unknown.
  var interlacing: String?
  /// Bytes of the header line, its newline included.
  var length: Int

  /// The 8-bit 4:2:0 chroma tags: they differ only in where chroma samples
  /// sit, and the planes are laid out the same way.
  static let supportedChroma: Set<String> = ["420", "420jpeg", "420paldv", "420mpeg2"]

  /// Longest header accepted; real ones are well under 100 bytes.
  static let maximumLength = 4096
  static let magic = Array("YUV4MPEG2".utf8)

  /// Parses the header at the start of `bytes`; errors name `path`.
  /// The widest and tallest frame read, pixels.
  static let maximumSide = 16384

  static func parse(_ bytes: [UInt8], path: String) throws(CaptureError) -> Y4MHeader {
    func invalid(_ reason: String, help: String? = nil) -> CaptureError {
      CaptureError(
        .invalidRecording, source: path, "bad YUV4MPEG2 header: \(reason)",
        help: help ?? "the first line must be like YUV4MPEG2 W640 H360 F30:1 C420jpeg")
    }
    guard bytes.starts(with: magic) else { throw invalid("it does not start with YUV4MPEG2") }
    guard let newline = bytes.firstIndex(of: 0x0A) else {
      throw invalid("no end of line within the first \(bytes.count) bytes")
    }
    let line = String(decoding: bytes[magic.count..<newline], as: UTF8.self)
    var parsedWidth: Int?
    var parsedHeight: Int?
    var widthText: Substring?
    var heightText: Substring?
    var rateUnknown = false
    var header = Y4MHeader(width: 0, height: 0, rate: nil, chroma: nil, interlacing: nil, length: newline + 1)
    for field in line.split(separator: " ", omittingEmptySubsequences: true) {
      let value = field.dropFirst()
      switch field.first {
      case "W":
        parsedWidth = Int(value)
        widthText = value
      case "H":
        parsedHeight = Int(value)
        heightText = value
      case "F":
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let frames = Int(parts[0]), let seconds = Int(parts[1]), frames >= 0, seconds >= 0
        else { throw invalid("frame rate '\(field)' is not F<frames>:<seconds>") }
        // F0:0 means unknown.
        if frames > 0, seconds > 0 { header.rate = (frames, seconds) } else { rateUnknown = true }
      case "C": header.chroma = String(value)
      case "I": header.interlacing = String(value)
      default: continue  // A (aspect), X (extensions): nothing to do with the pixels.
      }
    }
    func size(_ value: Int?, _ text: Substring?, _ tag: String, _ what: String) throws(CaptureError) -> Int {
      guard let text else { throw invalid("no \(what) (\(tag))") }
      guard let value, (1...maximumSide).contains(value) else {
        throw invalid("the \(what) \(tag)\(text) is not a whole number from 1 to \(maximumSide)")
      }
      return value
    }
    let width = try size(parsedWidth, widthText, "W", "width")
    let height = try size(parsedHeight, heightText, "H", "height")
    header.rateUnknown = rateUnknown
    header.width = width
    header.height = height
    if let chroma = header.chroma, !supportedChroma.contains(chroma) {
      throw CaptureError(
        .invalidRecording, source: path,
        "Y4M chroma format C\(chroma) is not supported: only 8-bit 4:2:0 (C420jpeg, C420paldv, C420mpeg2, "
          + "C420 or no C tag)",
        help: "convert it, e.g. ffmpeg -i \(path) -pix_fmt yuv420p OUTPUT.y4m")
    }
    return header
  }
}

/// A YUV4MPEG2 file of 8-bit 4:2:0 frames. Each frame is a `FRAME` line and
/// a fixed number of bytes; pixels come out as `.image` in a `yuv420p`
/// buffer that is reused for the next frame. A frame whose `FRAME` line is
/// missing is unreadable and reading resumes at the next `FRAME` line; a
/// short last frame is unreadable.
final class Y4MFileSource: FrameSource {
  let info: SourceInfo
  private let file: RecordingFile
  private let header: Y4MHeader
  private let timeline: TimestampsTimeline
  private let buffer: ImageBuffer
  private let frameBytes: Int
  /// Where the next frame's `FRAME` line starts.
  private var position: Int64
  private var nextIndex: Int64 = 0
  private var isClosed = false
  /// Where each `FRAME` line is read: one array for all of them.
  private var line: [UInt8] = []

  static let frameMarker = Array("FRAME".utf8)
  /// Longest `FRAME` line accepted (it may carry parameters).
  static let maximumFrameLine = 1024

  init(file: RecordingFile, context: RecordingContext) throws(CaptureError) {
    self.file = file
    header = try Y4MHeader.parse(try file.read(at: 0, count: Y4MHeader.maximumLength), path: context.path)
    frameBytes = PixelFormat.yuv420p.byteCount(width: header.width, height: header.height)
    position = Int64(header.length)
    // The frame buffer is as large as the header says: a short file that
    // declares a huge frame is refused before it is allocated.
    let firstFrame = Int64(header.length) + Int64(Self.frameMarker.count + 1) + Int64(frameBytes)
    guard file.size >= firstFrame else {
      throw CaptureError(
        .invalidRecording, source: context.path,
        "truncated: the header declares \(header.width)×\(header.height) frames (\(frameBytes) bytes each), and the file holds \(file.size) bytes, not one whole frame",
        help: "check that the file was copied whole, and that W and H are the frames' size")
    }
    if header.rateUnknown, context.fps == nil, context.sidecar == nil {
      throw CaptureError(
        .invalidRecording, source: context.path,
        "the frame rate is F0:0 (unknown), and nothing else gives the frames' times",
        help: "give the rate with --fps N, or the times in a timestamps sidecar (docs/inputs.md)")
    }
    buffer = ImageBuffer(width: header.width, height: header.height, format: .yuv420p)
    timeline = context.timeline(header: header.rate.map { (Double($0.frames), Double($0.perSeconds)) })
    // Exact only when every FRAME line is bare, as nearly all writers make them.
    let framed = Int64(frameBytes + Self.frameMarker.count + 1)
    let body = file.size - position
    let frameCount = body % framed == 0 ? Int(body / framed) : nil
    var details = ["y4m_chroma": header.chroma ?? "420jpeg"]
    if let interlacing = header.interlacing { details["y4m_interlacing"] = interlacing }
    info = SourceInfo(
      kind: RecordingSource.Format.y4m.rawValue, name: context.path, width: header.width, height: header.height,
      fps: timeline.framesPerSecond, frameCount: frameCount, details: context.details(timeline: timeline, details))
  }

  func next() throws(CaptureError) -> CapturedFrame? {
    guard !isClosed, position < file.size else { return nil }
    let index = nextIndex
    nextIndex += 1
    let payload = try readFrame()
    return CapturedFrame(index: index, t: timeline.time(ofFrame: index), payload: payload)
  }

  private func readFrame() throws(CaptureError) -> FramePayload {
    try file.read(at: position, count: Self.maximumFrameLine, into: &line)
    guard line.starts(with: Self.frameMarker) || Self.frameMarker.starts(with: line) else {
      let damagedAt = position
      position = try findFrameLine(after: position)
      return .unreadable(reason: "no FRAME line at byte \(damagedAt); skipped to the next one")
    }
    guard let newline = line.firstIndex(of: 0x0A) else {
      position = file.size
      if line.count < Self.maximumFrameLine {
        return .unreadable(reason: "truncated: the file ends inside a FRAME line")
      }
      return .unreadable(reason: "a FRAME line longer than \(Self.maximumFrameLine) bytes")
    }
    let pixelsStart = position + Int64(newline) + 1
    buffer.reshape(width: header.width, height: header.height, format: .yuv420p)
    let got = try file.read(
      at: pixelsStart, into: UnsafeMutableRawBufferPointer(start: buffer.pixels, count: frameBytes))
    position = pixelsStart + Int64(got)
    guard got == frameBytes else {
      return .unreadable(reason: "truncated: \(got) of \(frameBytes) bytes of pixels before the end of the file")
    }
    return .image(buffer)
  }

  /// The start of the next `FRAME` line after `start`, or the end of the file.
  private func findFrameLine(after start: Int64) throws(CaptureError) -> Int64 {
    let blockSize = 1 << 20
    var blockStart = start + 1
    while blockStart < file.size {
      let block = try file.read(at: blockStart, count: blockSize)
      let marker = Self.frameMarker
      var index = 0
      while index + marker.count < block.count {
        if block[index] == marker[0], block[index..<(index + marker.count)].elementsEqual(marker),
          block[index + marker.count] == 0x0A || block[index + marker.count] == 0x20
        {
          return blockStart + Int64(index)
        }
        index += 1
      }
      // Overlap blocks so that a marker across their boundary is found.
      blockStart += Int64(max(1, block.count - marker.count))
      if block.count < blockSize { break }
    }
    return file.size
  }

  func close() {
    isClosed = true
    file.close()
  }
}
