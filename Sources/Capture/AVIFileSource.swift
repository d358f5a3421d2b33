/// What an AVI's header list (hdrl) says about its Motion JPEG video stream.
struct AVIVideoHeader {
  /// The stream's number: its chunks are `NNdc`.
  var stream: Int
  var width: Int
  var height: Int
  /// strh dwRate / dwScale is the frame rate; 0 when missing.
  var rate: UInt32
  var scale: UInt32
  /// avih dwMicroSecPerFrame, the fallback rate.
  var microsecondsPerFrame: UInt32
  /// avih dwTotalFrames, as the writer declared it (not trusted).
  var declaredFrames: UInt32
  /// strf biCompression (or strh fccHandler when that is empty).
  var codec: String
}

/// Where each video frame of an AVI is, found once when the file is opened.
enum AVIFrameEntry {
  /// A chunk whose 8-byte header starts at `headerOffset`; `fromIndex` when
  /// the position came from idx1 (so the header there is not yet checked).
  case chunk(headerOffset: Int64, size: Int, fromIndex: Bool)
  /// A stretch of the file that should have held a frame but is damaged.
  case damaged(reason: String)
}

/// Reads the structure of a RIFF AVI: the header list, then the video
/// chunks, from idx1 when it is there and agrees with the file, else by
/// walking the movi list chunk by chunk (a file cut short has no idx1). A
/// chunk header that makes no sense starts a search for the next video
/// chunk, so one damaged stretch costs one unreadable frame.
struct AVIStructure {
  var video: AVIVideoHeader
  var entries: [AVIFrameEntry]
  /// "idx1" when the frames came from the index, "walk" when found by walking.
  var frameSource: String

  private let file: RecordingFile
  private let videoIDs: [[UInt8]]

  private static let blockSize = 1 << 20

  init(file: RecordingFile, path: String) throws(CaptureError) {
    self.file = file
    let riff = try file.read(at: 0, count: 12)
    let riffSize = Int64(AVIFormat.uint32(riff, at: 4))
    // A writer that stopped early may leave the RIFF size 0 or too large.
    let riffEnd = riffSize < 4 || 8 + riffSize > file.size ? file.size : 8 + riffSize

    var video: AVIVideoHeader?
    var moviListOffset: Int64?
    var moviSizeTrusted = false
    var indexOffset: Int64?
    var indexSize = 0
    var position: Int64 = 12
    while position + 8 <= riffEnd {
      let head = try file.read(at: position, count: 12)
      let id = String(decoding: head[0..<4], as: UTF8.self)
      let size = Int64(AVIFormat.uint32(head, at: 4))
      let listType = head.count >= 12 ? String(decoding: head[8..<12], as: UTF8.self) : ""
      let fits = position + 8 + size <= file.size
      if id == "LIST", listType == "hdrl" {
        guard fits, size >= 4, size < 1 << 24 else {
          throw CaptureError(
            .invalidRecording, source: path, "its header list (hdrl) is cut short or damaged",
            help: "the file was cut off before its first frame; nothing in it can be read")
        }
        video = try Self.parseHeaderList(try file.read(at: position + 12, count: Int(size - 4)), path: path)
      } else if id == "LIST", listType == "movi" {
        moviListOffset = position
        moviSizeTrusted = fits && size >= 4
        // With a size that cannot be right the movi list runs to the end.
        guard moviSizeTrusted else { break }
      } else if id == "idx1", fits {
        indexOffset = position + 8
        indexSize = Int(size)
      }
      guard fits else { break }
      position += 8 + size + (size & 1)
    }
    guard let video else {
      throw CaptureError(
        .invalidRecording, source: path, "no video stream header (hdrl with a 'vids' stream)",
        help: RecordingSource.supportedFormatsHelp)
    }
    guard let moviListOffset else {
      throw CaptureError(
        .invalidRecording, source: path, "no frame data: the file ends before its movi list",
        help: "the recording was cut off before its first frame")
    }
    self.video = video
    videoIDs = AVIFormat.videoChunkIDs(stream: video.stream)
    entries = []
    frameSource = "walk"

    // An OpenDML file (over 1 GiB) goes on in more RIFF parts that idx1 does not cover.
    let next = try file.read(at: riffEnd, count: 12)
    let hasMoreParts =
      next.count == 12 && next[0..<4].elementsEqual("RIFF".utf8) && next[8..<12].elementsEqual("AVIX".utf8)
    if moviSizeTrusted, !hasMoreParts, let indexOffset,
      let indexed = try entriesFromIndex(at: indexOffset, size: indexSize, moviListOffset: moviListOffset)
    {
      entries = indexed
      frameSource = "idx1"
    } else {
      entries = try entriesByWalking(from: moviListOffset + 12)
    }
  }

  // MARK: Header list

  private static func parseHeaderList(_ bytes: [UInt8], path: String) throws(CaptureError) -> AVIVideoHeader {
    var header = AVIVideoHeader(
      stream: -1, width: 0, height: 0, rate: 0, scale: 0, microsecondsPerFrame: 0, declaredFrames: 0, codec: "")
    var streamCount = 0
    var otherCodec: String?
    forEachChunk(in: bytes, from: 0) { id, body in
      switch id {
      case "avih":
        header.microsecondsPerFrame = AVIFormat.uint32(body, at: 0)
        header.declaredFrames = AVIFormat.uint32(body, at: 16)
        if header.width == 0 { header.width = Int(AVIFormat.uint32(body, at: 32)) }
        if header.height == 0 { header.height = Int(AVIFormat.uint32(body, at: 36)) }
      case "LIST" where body.count >= 4 && body[0..<4].elementsEqual("strl".utf8):
        let stream = streamCount
        streamCount += 1
        guard header.stream < 0 else { return }
        var isVideo = false
        var handler = ""
        var strh: [UInt8] = []
        var strf: [UInt8] = []
        forEachChunk(in: body, from: 4) { id, streamBody in
          if id == "strh" { strh = streamBody }
          if id == "strf" { strf = streamBody }
        }
        guard strh.count >= 36 else { return }
        isVideo = strh[0..<4].elementsEqual("vids".utf8)
        guard isVideo else { return }
        handler = AVIFormat.text(strh[4..<8]).trimmingTrailingSpacesAndNulls()
        var codec = handler
        if strf.count >= 20 {
          let compression = AVIFormat.text(strf[16..<20]).trimmingTrailingSpacesAndNulls()
          if !compression.isEmpty, compression != "????" { codec = compression }
          header.width = Int(abs(AVIFormat.int32(strf, at: 4)))
          // Negative for top-down bitmaps: the size is what matters here.
          header.height = Int(abs(AVIFormat.int32(strf, at: 8)))
        }
        let isMotionJPEG =
          AVIFormat.motionJPEGCodecs.contains(codec.uppercased())
          || AVIFormat.motionJPEGCodecs.contains(handler.uppercased())
        guard isMotionJPEG else {
          otherCodec = otherCodec ?? codec
          return
        }
        header.stream = stream
        header.codec = codec
        header.scale = AVIFormat.uint32(strh, at: 20)
        header.rate = AVIFormat.uint32(strh, at: 24)
      default:
        break
      }
    }
    if header.stream < 0, let otherCodec {
      throw CaptureError(
        .unsupportedFormat, source: path, "its video is '\(otherCodec)', not Motion JPEG (MJPG)",
        help: "convert it: ffmpeg -i \(path) -c:v mjpeg -q:v 3 OUTPUT.avi")
    }
    guard header.stream >= 0 else {
      throw CaptureError(
        .invalidRecording, source: path, "no video stream in its header list",
        help: RecordingSource.supportedFormatsHelp)
    }
    return header
  }

  /// Calls `body` with the id and contents of each chunk in `bytes` from
  /// `start`, stopping at the first chunk that runs past the end.
  private static func forEachChunk(in bytes: [UInt8], from start: Int, _ body: (String, [UInt8]) -> Void) {
    var position = start
    while position + 8 <= bytes.count {
      let id = String(decoding: bytes[position..<(position + 4)], as: UTF8.self)
      let size = Int(AVIFormat.uint32(bytes, at: position + 4))
      guard size <= bytes.count - position - 8 else { return }
      body(id, Array(bytes[(position + 8)..<(position + 8 + size)]))
      position += 8 + size + (size & 1)
    }
  }

  // MARK: Frames from idx1

  /// The video entries of idx1, or nil when the index does not match the
  /// file (then the movi list is walked instead).
  private func entriesFromIndex(at offset: Int64, size: Int, moviListOffset: Int64) throws(CaptureError)
    -> [AVIFrameEntry]?
  {
    let index = try file.read(at: offset, count: size)
    var videoEntries: [(offset: Int64, size: Int)] = []
    var entryStart = 0
    while entryStart + 16 <= index.count {
      let id = index[entryStart..<(entryStart + 4)]
      if videoIDs.contains(where: { id.elementsEqual($0) }) {
        videoEntries.append(
          (
            Int64(AVIFormat.uint32(index, at: entryStart + 8)),
            Int(AVIFormat.uint32(index, at: entryStart + 12))
          ))
      }
      entryStart += 16
    }
    guard !videoEntries.isEmpty else { return nil }
    // Offsets count from the 'movi' list type in most files, from the start
    // of the file in some: take the base under which the first entries land
    // on their chunks.
    let candidateBases = [moviListOffset + 8, 0]
    var base: Int64?
    for candidate in candidateBases {
      var matches = 0
      for entry in videoEntries.prefix(5) {
        if try chunkHeaderMatches(at: candidate + entry.offset, size: entry.size) { matches += 1 }
      }
      if matches > 0 {
        base = candidate
        break
      }
    }
    guard let base else { return nil }
    return videoEntries.map { entry in
      let headerOffset = base + entry.offset
      if entry.size == 0 { return .damaged(reason: "an empty chunk: the writer dropped this frame") }
      if headerOffset + 8 + Int64(entry.size) > file.size {
        return .damaged(reason: "truncated: the file ends inside the frame chunk at byte \(headerOffset)")
      }
      return .chunk(headerOffset: headerOffset, size: entry.size, fromIndex: true)
    }
  }

  private func chunkHeaderMatches(at offset: Int64, size: Int) throws(CaptureError) -> Bool {
    guard offset >= 0 else { return false }
    let head = try file.read(at: offset, count: 8)
    guard head.count == 8 else { return false }
    return videoIDs.contains { head[0..<4].elementsEqual($0) } && Int(AVIFormat.uint32(head, at: 4)) == size
  }

  // MARK: Frames by walking

  /// Walks chunk by chunk from the first chunk inside the movi list to the
  /// end of the file, through `rec ` lists and OpenDML parts.
  private func entriesByWalking(from start: Int64) throws(CaptureError) -> [AVIFrameEntry] {
    var entries: [AVIFrameEntry] = []
    var position = start
    while position < file.size {
      let head = try file.read(at: position, count: 12)
      guard head.count >= 8 else {
        // A few bytes left: a frame was lost only if they begin a frame chunk's id.
        let beginsFrame = videoIDs.contains { $0.starts(with: head.prefix(4)) }
        if beginsFrame {
          entries.append(.damaged(reason: "truncated: the file ends inside a chunk header at byte \(position)"))
        }
        break
      }
      let id = head[0..<4]
      let size = Int64(AVIFormat.uint32(head, at: 4))
      let fits = position + 8 + size <= file.size
      let listType = head.count >= 12 ? String(decoding: head[8..<12], as: UTF8.self) : ""
      if videoIDs.contains(where: { id.elementsEqual($0) }) {
        if fits {
          entries.append(
            size == 0
              ? .damaged(reason: "an empty chunk: the writer dropped this frame")
              : .chunk(headerOffset: position, size: Int(size), fromIndex: false))
          position += 8 + size + (size & 1)
          continue
        }
        // Past the end: the file was cut in this frame, or its size is damaged.
        guard let resumed = try findVideoChunk(after: position) else {
          entries.append(.damaged(reason: "truncated: the file ends inside the frame chunk at byte \(position)"))
          break
        }
        entries.append(.damaged(reason: "the frame chunk at byte \(position) has a damaged size"))
        position = resumed
        continue
      }
      if id.elementsEqual("LIST".utf8), listType == "movi" || listType == "rec " {
        position += 12
        continue
      }
      if id.elementsEqual("RIFF".utf8), listType == "AVIX" {
        position += 12
        continue
      }
      if Self.isKnownChunk(id) {
        if fits {
          position += 8 + size + (size & 1)
          continue
        }
        // Another stream's chunk cut by the end of the file loses no frame.
        guard let resumed = try findVideoChunk(after: position) else { break }
        entries.append(.damaged(reason: "a chunk at byte \(position) has a damaged size"))
        position = resumed
        continue
      }
      guard try !isZeroFilled(from: position) else { break }
      guard let resumed = try findVideoChunk(after: position) else {
        entries.append(.damaged(reason: "damaged data from byte \(position) to the end of the file"))
        break
      }
      entries.append(.damaged(reason: "damaged data at bytes \(position)–\(resumed - 1)"))
      position = resumed
    }
    return entries
  }

  /// Chunk ids that may appear among the frames: lists, padding, indexes
  /// and other streams' data (`NNwb` audio, `NNdc`, `NNpc`, `NNtx`).
  private static func isKnownChunk(_ id: ArraySlice<UInt8>) -> Bool {
    let text = String(decoding: id, as: UTF8.self)
    if ["LIST", "RIFF", "JUNK", "idx1", "indx"].contains(text) { return true }
    let bytes = Array(id)
    let isDigit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
    if bytes[0] == UInt8(ascii: "i"), bytes[1] == UInt8(ascii: "x"), isDigit(bytes[2]), isDigit(bytes[3]) {
      return true
    }
    guard isDigit(bytes[0]), isDigit(bytes[1]) else { return false }
    return ["wb", "dc", "db", "pc", "tx"].contains(String(decoding: bytes[2..<4], as: UTF8.self))
  }

  /// The next video chunk after `start` whose size fits in the file and
  /// whose data starts like a JPEG; nil when there is none.
  private func findVideoChunk(after start: Int64) throws(CaptureError) -> Int64? {
    var blockStart = start + 1
    while blockStart < file.size {
      let block = try file.read(at: blockStart, count: Self.blockSize)
      var index = 0
      while index + 8 <= block.count {
        let id = block[index..<(index + 4)]
        if block[index + 2] == UInt8(ascii: "d"), videoIDs.contains(where: { id.elementsEqual($0) }) {
          let position = blockStart + Int64(index)
          let size = Int64(AVIFormat.uint32(block, at: index + 4))
          if position + 8 + size <= file.size {
            let data = try file.read(at: position + 8, count: 2)
            if size == 0 || data == [0xFF, 0xD8] { return position }
          }
        }
        index += 1
      }
      if block.count < Self.blockSize { break }
      // Overlap so that a chunk header across two blocks is seen.
      blockStart += Int64(block.count - 7)
    }
    return nil
  }

  /// Whether the rest of the file from `start` is zeros, as some writers
  /// leave space they reserved and never used.
  private func isZeroFilled(from start: Int64) throws(CaptureError) -> Bool {
    var position = start
    while position < file.size {
      let block = try file.read(at: position, count: Self.blockSize)
      guard !block.isEmpty else { break }
      if block.contains(where: { $0 != 0 }) { return false }
      position += Int64(block.count)
    }
    return true
  }
}

extension String {
  fileprivate func trimmingTrailingSpacesAndNulls() -> String {
    var trimmed = self
    while let last = trimmed.last, last == " " || last == "\0" || last == "?" { trimmed.removeLast() }
    return trimmed
  }
}

/// An AVI file with a Motion JPEG video stream; other streams are ignored.
/// Frame times come from the stream's dwRate/dwScale unless a timestamps
/// sidecar says otherwise. A chunk that is not a whole JPEG, an empty
/// (dropped) chunk or a damaged stretch of the file is an unreadable frame;
/// a frame cut off by the end of the file is the last, unreadable frame.
final class AVIFileSource: FrameSource {
  let info: SourceInfo
  private let file: RecordingFile
  private let structure: AVIStructure
  private let timeline: TimestampsTimeline
  private let videoIDs: [[UInt8]]
  private var nextIndex = 0
  private var isClosed = false
  /// Two frames' bytes in turn: the run holds the frame before while it
  /// reads the next, and lets it go before the one after, whose bytes then
  /// go into its storage (a frame still held elsewhere is copied, not overwritten).
  private var chunks: [[UInt8]] = [[], []]
  private var chunkIndex = 0

  init(file: RecordingFile, context: RecordingContext) throws(CaptureError) {
    self.file = file
    structure = try AVIStructure(file: file, path: context.path)
    let video = structure.video
    videoIDs = AVIFormat.videoChunkIDs(stream: video.stream)
    var headerRate: (frames: Double, perSeconds: Double)?
    if video.rate > 0, video.scale > 0 {
      headerRate = (Double(video.rate), Double(video.scale))
    } else if video.microsecondsPerFrame > 0 {
      headerRate = (1_000_000, Double(video.microsecondsPerFrame))
    }
    timeline = context.timeline(header: headerRate)
    var details = [
      "avi_codec": video.codec, "avi_frames_from": structure.frameSource,
      "avi_declared_frames": String(video.declaredFrames),
    ]
    // A writer that was stopped leaves 0: it then says nothing.
    if video.declaredFrames > 0 { details["declared_frames"] = String(video.declaredFrames) }
    info = SourceInfo(
      kind: RecordingSource.Format.avi.rawValue, name: context.path, width: video.width > 0 ? video.width : nil,
      height: video.height > 0 ? video.height : nil, fps: timeline.framesPerSecond,
      frameCount: structure.entries.count, details: context.details(timeline: timeline, details))
  }

  func next() throws(CaptureError) -> CapturedFrame? {
    guard !isClosed, nextIndex < structure.entries.count else { return nil }
    let index = nextIndex
    nextIndex += 1
    let payload: FramePayload
    switch structure.entries[index] {
    case .damaged(let reason):
      payload = .unreadable(reason: reason)
    case .chunk(let headerOffset, let size, let fromIndex):
      payload = try readChunk(at: headerOffset, size: size, fromIndex: fromIndex)
    }
    return CapturedFrame(index: Int64(index), t: timeline.time(ofFrame: Int64(index)), payload: payload)
  }

  private func readChunk(at headerOffset: Int64, size: Int, fromIndex: Bool) throws(CaptureError) -> FramePayload {
    chunkIndex ^= 1
    try file.read(at: headerOffset + 8, count: size, into: &chunks[chunkIndex])
    let chunk = chunks[chunkIndex]
    guard chunk.count == size else {
      return .unreadable(reason: "truncated: the file ends inside the frame chunk at byte \(headerOffset)")
    }
    switch MJPEGMarkers.check(chunk) {
    case .complete:
      return .jpeg(chunk)
    case .broken(let reason):
      let header = try file.read(at: headerOffset, count: 8)
      let headerMatches =
        header.count == 8 && videoIDs.contains { header[0..<4].elementsEqual($0) }
        && Int(AVIFormat.uint32(header, at: 4)) == size
      let place = fromIndex && !headerMatches ? " (its chunk header does not match the index)" : ""
      return .unreadable(reason: "frame chunk at byte \(headerOffset)\(place): \(reason)")
    case .needsMoreData:
      return .unreadable(reason: "frame chunk at byte \(headerOffset): truncated")
    }
  }

  func close() {
    isClosed = true
    file.close()
  }
}
