import FileSystem
import Foundation
import JSONCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Records JPEG frames as Motion JPEG in an AVI 1.0 (RIFF) file that
/// standard players read, with a timestamps sidecar (`TimestampsSidecar`)
/// holding each frame's real capture time.
///
/// Layout: `RIFF 'AVI '` { `LIST 'hdrl'` { `avih`, `LIST 'strl'` { `strh`
/// 'vids' 'MJPG', `strf` BITMAPINFOHEADER } }, `LIST 'movi'` { one `00dc`
/// chunk per frame, padded to an even size }, `idx1` }. The header's totals
/// (frame count, sizes) and the index are written by `finish()`.
///
/// The file is written under a temporary name in the same folder and
/// renamed into place by `finish()`, so the path never holds a half-written
/// recording; the sidecar is written the same way, just before. A recording
/// stops growing at 1 GiB (the size AVI 1.0 players handle): `append` then
/// throws and what was recorded can still be finished.
///
/// `finish()` may be called from any exit path (an interrupt, a lost
/// camera), more than once, and from another thread than `append`: the
/// writer is locked, which is why it is `Sendable`. If it is never called,
/// deinit finishes the recording.
public final class AVIWriter: @unchecked Sendable {
  public let path: String
  public let width: Int
  public let height: Int
  public let fps: Double
  /// The largest file `append` lets a recording grow to, index included:
  /// AVI 1.0 readers are only sure to handle files up to 1 GiB.
  public static let maximumFileBytes: Int64 = 1 << 30
  /// This recording's limit: `maximumFileBytes` or less.
  public let maximumBytes: Int64

  /// The frame rate as the stream header writes it: `rate / scale` frames per second.
  public let rate: UInt32
  public let scale: UInt32

  private let lock = NSLock()
  private let file: AtomicFile
  private var descriptor: Int32 { file.descriptor }
  private let deviceInfo: [String: String]
  /// Where the next chunk goes: the end of the last whole chunk.
  private var end: Int64
  /// Each frame's chunk offset (from the 'movi' list type, as idx1 counts) and size.
  private var chunks: [(offset: UInt32, size: UInt32)] = []
  private var times: [Double] = []
  private var largestFrame = 0
  private var isFinished = false

  /// The header occupies the first bytes; the 'movi' list starts right after it.
  static let moviListOffset: Int64 = 212
  static let headerBytes = 224

  /// Starts a recording at `path` (written when `finish()` is called).
  /// `deviceInfo` goes into the sidecar's header (device, driver, card...).
  /// `maximumBytes` lowers the size limit (a disk quota, a test).
  public init(
    path: String, width: Int, height: Int, fps: Double, deviceInfo: [String: String] = [:],
    maximumBytes: Int64 = AVIWriter.maximumFileBytes
  ) throws(CaptureError) {
    guard width > 0, height > 0, width <= 32767, height <= 32767 else {
      throw CaptureError(.unsupportedFormat, source: path, "cannot record frames of \(width)×\(height)")
    }
    guard fps.isFinite, fps > 0 else {
      throw CaptureError(.unsupportedFormat, source: path, "cannot record at \(fps) frames per second")
    }
    self.path = path
    self.width = width
    self.height = height
    self.fps = fps
    self.deviceInfo = deviceInfo
    self.maximumBytes = min(maximumBytes, Self.maximumFileBytes)
    (rate, scale) = Self.rational(framesPerSecond: fps)
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
      throw CaptureError(.io, source: path, "is a folder, not a file", help: "give a file name such as clip.avi")
    }
    file = try RecordingFiles.begin(path)
    end = Int64(Self.headerBytes)
    // Zero totals until finish() knows them.
    let header = makeHeader(riffSize: 0, moviSize: 4)
    let failure = header.withUnsafeBytes { pwriteFully(descriptor, $0, at: 0) }
    guard failure == 0 else {
      file.abandon()
      throw writeError(failure)
    }
  }

  deinit {
    // Never finished by its owner: keep what was recorded rather than lose it.
    try? finish()
  }

  /// Frames appended so far.
  public var frameCount: Int {
    lock.lock()
    defer { lock.unlock() }
    return chunks.count
  }

  /// Appends one JPEG frame captured at `t` seconds (any clock; written to
  /// the sidecar exactly). The bytes are stored as they are.
  public func append(jpeg: [UInt8], t: Double) throws(CaptureError) {
    lock.lock()
    defer { lock.unlock() }
    guard !isFinished else {
      throw CaptureError(.io, source: path, "the recording is already finished", help: "start a new AVIWriter")
    }
    guard t.isFinite else {
      throw CaptureError(.io, source: path, "frame \(chunks.count) has no valid time (\(t))")
    }
    let padded = Int64(jpeg.count + (jpeg.count & 1))
    let indexBytes = Int64(8 + 16 * (chunks.count + 1))
    guard end + 8 + padded + indexBytes <= maximumBytes else {
      throw CaptureError(
        .io, source: path,
        "the recording would grow past \(Self.describe(bytes: maximumBytes)) after \(chunks.count) frames",
        help: "record shorter clips, or a lower resolution or JPEG quality; what was recorded is kept")
    }
    var chunk: [UInt8] = []
    chunk.reserveCapacity(8 + Int(padded))
    chunk.append(contentsOf: AVIFormat.fourCC("00dc"))
    AVIFormat.append(UInt32(jpeg.count), to: &chunk)
    chunk.append(contentsOf: jpeg)
    if jpeg.count & 1 == 1 { chunk.append(0) }
    let failure = chunk.withUnsafeBytes { pwriteFully(descriptor, $0, at: end) }
    guard failure == 0 else {
      // Drop the partial chunk so that finish() still makes a valid file.
      _ = ftruncate(descriptor, off_t(end))
      throw writeError(failure)
    }
    chunks.append((UInt32(end - (Self.moviListOffset + 8)), UInt32(jpeg.count)))
    times.append(t)
    largestFrame = max(largestFrame, jpeg.count)
    end += Int64(chunk.count)
  }

  /// Writes the index and the header's totals, then moves the sidecar and
  /// the recording into place. Safe to call again (it does nothing then).
  public func finish() throws(CaptureError) {
    lock.lock()
    defer { lock.unlock() }
    guard !isFinished else { return }
    isFinished = true

    // On a full disk, the last frames give back the room the index and the
    // sidecar need: the recording is kept, complete and readable, without
    // them (a file that cannot be finished would be lost whole).
    var dropped = 0
    var failure = writeIndexAndHeader()
    while isFull(failure), !chunks.isEmpty {
      dropLastFrame()
      dropped += 1
      failure = writeIndexAndHeader()
    }
    if failure == 0 {
      do { try file.sync() } catch { failure = error.code }
    }
    guard failure == 0 else {
      // Nothing could be kept: leave no hidden partial file behind.
      file.abandon()
      throw CaptureError(
        .io, source: path, "could not finish the recording: \(String(cString: strerror(failure)))",
        help: isFull(failure) ? "the disk is full: free some space and record again" : "check the folder")
    }
    let sidecarPath = TimestampsSidecar.path(forRecording: path, isFolder: false)
    var sidecarError: CaptureError?
    while true {
      do {
        try sidecar().write(to: sidecarPath)
        sidecarError = nil
        break
      } catch {
        sidecarError = error
        guard error.message.contains(String(cString: strerror(ENOSPC))), !chunks.isEmpty else { break }
        dropLastFrame()
        dropped += 1
        let rewritten = writeIndexAndHeader()
        guard rewritten == 0 else { break }
      }
    }
    if let sidecarError {
      file.abandon()
      throw CaptureError(
        .io, source: path, "could not write its timestamps sidecar: \(sidecarError.message)",
        help: "free some space and record again")
    }
    framesDroppedAtFinish = dropped
    do {
      try file.commit()
    } catch {
      throw CaptureError(
        .io, source: path, "could not move the recording into place: \(error.reason)",
        help: "the recording is at \(file.temporaryPath)")
    }
  }

  private func sidecar() -> TimestampsSidecar {
    var header = JSONObject([
      ("writer", .string("workbench AVIWriter")), ("width", .integer(Int64(width))),
      ("height", .integer(Int64(height))), ("fps", .number(fps)), ("frames", .integer(Int64(times.count))),
    ])
    for key in deviceInfo.keys.sorted() where header[key] == nil { header[key] = .string(deviceInfo[key]!) }
    var times: [Int64: Double] = [:]
    for (frame, time) in self.times.enumerated() { times[Int64(frame)] = time }
    return TimestampsSidecar(header: header, times: times)
  }

  private static func describe(bytes: Int64) -> String {
    if bytes >= 1 << 30, bytes % (1 << 30) == 0 { return "\(bytes >> 30) GiB" }
    if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
    return "\(bytes) bytes"
  }

  /// Frames left out when the recording was finished on a full disk.
  public private(set) var framesDroppedAtFinish = 0

  private func isFull(_ error: Int32) -> Bool { error == ENOSPC || error == EDQUOT }

  /// The index after the frames and the header's totals; errno or 0.
  private func writeIndexAndHeader() -> Int32 {
    var index: [UInt8] = []
    index.reserveCapacity(8 + 16 * chunks.count)
    index.append(contentsOf: AVIFormat.fourCC("idx1"))
    AVIFormat.append(UInt32(16 * chunks.count), to: &index)
    for chunk in chunks {
      index.append(contentsOf: AVIFormat.fourCC("00dc"))
      AVIFormat.append(AVIFormat.keyFrameFlag, to: &index)
      AVIFormat.append(chunk.offset, to: &index)
      AVIFormat.append(chunk.size, to: &index)
    }
    let fileSize = end + Int64(index.count)
    let header = makeHeader(riffSize: UInt32(fileSize - 8), moviSize: UInt32(end - Self.moviListOffset - 8))
    var failure = index.withUnsafeBytes { pwriteFully(descriptor, $0, at: end) }
    if failure == 0 { failure = header.withUnsafeBytes { pwriteFully(descriptor, $0, at: 0) } }
    if failure == 0, ftruncate(descriptor, off_t(fileSize)) != 0 { failure = errno }
    return failure
  }

  /// Forgets the last frame and gives its bytes back to the disk.
  private func dropLastFrame() {
    guard let last = chunks.popLast() else { return }
    times.removeLast()
    end = Int64(last.offset) + Self.moviListOffset + 8
    _ = ftruncate(descriptor, off_t(end))
  }

  private func writeError(_ error: Int32) -> CaptureError {
    CaptureError(
      .io, source: path, "could not write the recording: \(String(cString: strerror(error)))",
      help: isFull(error)
        ? "the disk is full: the frames recorded so far are kept (the last ones may give way to the index); free some space"
        : "check the folder's permissions")
  }

  /// The 224 bytes before the first frame, with the totals known so far.
  private func makeHeader(riffSize: UInt32, moviSize: UInt32) -> [UInt8] {
    let frames = UInt32(chunks.count)
    let suggestedBuffer = UInt32(largestFrame + 8)
    let microsecondsPerFrame = UInt32((1_000_000 * Double(scale) / Double(rate)).rounded())
    let maxBytesPerSecond = UInt32(min(Double(UInt32.max), (Double(largestFrame) * fps).rounded(.up)))
    var bytes: [UInt8] = []
    bytes.reserveCapacity(Self.headerBytes)
    func fourCC(_ text: String) { bytes.append(contentsOf: AVIFormat.fourCC(text)) }
    func dword(_ value: UInt32) { AVIFormat.append(value, to: &bytes) }
    func word(_ value: UInt16) { AVIFormat.append(value, to: &bytes) }

    fourCC("RIFF")
    dword(riffSize)
    fourCC("AVI ")
    fourCC("LIST")
    dword(192)
    fourCC("hdrl")
    fourCC("avih")
    dword(56)
    dword(microsecondsPerFrame)
    dword(maxBytesPerSecond)
    dword(0)  // dwPaddingGranularity
    dword(AVIFormat.hasIndexFlag | AVIFormat.isInterleavedFlag)
    dword(frames)  // dwTotalFrames
    dword(0)  // dwInitialFrames
    dword(1)  // dwStreams
    dword(suggestedBuffer)
    dword(UInt32(width))
    dword(UInt32(height))
    for _ in 0..<4 { dword(0) }  // dwReserved
    fourCC("LIST")
    dword(116)
    fourCC("strl")
    fourCC("strh")
    dword(56)
    fourCC("vids")
    fourCC("MJPG")
    dword(0)  // dwFlags
    word(0)  // wPriority
    word(0)  // wLanguage
    dword(0)  // dwInitialFrames
    dword(scale)
    dword(rate)
    dword(0)  // dwStart
    dword(frames)  // dwLength
    dword(suggestedBuffer)
    dword(UInt32.max)  // dwQuality: default
    dword(0)  // dwSampleSize: varies per frame
    word(0)  // rcFrame left, top, right, bottom
    word(0)
    word(UInt16(width))
    word(UInt16(height))
    fourCC("strf")
    dword(40)
    dword(40)  // biSize
    dword(UInt32(width))
    dword(UInt32(height))
    word(1)  // biPlanes
    word(24)  // biBitCount
    fourCC("MJPG")  // biCompression
    dword(UInt32(width * height * 3))  // biSizeImage
    for _ in 0..<4 { dword(0) }  // pixels per metre, colours used, important
    fourCC("LIST")
    dword(moviSize)
    fourCC("movi")
    assert(bytes.count == Self.headerBytes)
    return bytes
  }

  /// `fps` as AVI's integer rate and scale: exact for whole rates and the
  /// NTSC family (30000/1001...), else to a millionth of a frame.
  static func rational(framesPerSecond fps: Double) -> (rate: UInt32, scale: UInt32) {
    for scale in [1.0, 1001.0, 1000.0] {
      let rate = fps * scale
      if abs(rate - rate.rounded()) < 1e-6, rate.rounded() >= 1, rate.rounded() <= Double(UInt32.max) {
        return (UInt32(rate.rounded()), UInt32(scale))
      }
    }
    var rate = UInt64((fps * 1_000_000).rounded())
    var scale: UInt64 = 1_000_000
    let divisor = greatestCommonDivisor(rate, scale)
    rate /= divisor
    scale /= divisor
    while rate > UInt64(UInt32.max) {
      rate /= 2
      scale = max(1, scale / 2)
    }
    return (UInt32(max(1, rate)), UInt32(scale))
  }

  private static func greatestCommonDivisor(_ a: UInt64, _ b: UInt64) -> UInt64 {
    var (a, b) = (a, b)
    while b != 0 { (a, b) = (b, a % b) }
    return max(1, a)
  }
}

/// Writes all of `buffer` at `offset`; 0, or the errno of the write that failed.
func pwriteFully(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer, at offset: Int64) -> Int32 {
  guard var next = buffer.baseAddress else { return 0 }
  var remaining = buffer.count
  var position = offset
  while remaining > 0 {
    let result = pwrite(descriptor, next, remaining, off_t(position))
    if result < 0 {
      if errno == EINTR { continue }
      return errno
    }
    next += result
    remaining -= result
    position += Int64(result)
  }
  return 0
}
