/// An MJPEG file: JPEG images one after another, as cameras stream them.
/// Images are split by their markers; bytes between images are skipped. An
/// image that is cut short or broken is an unreadable frame and reading
/// resumes at the next start of image marker (FFD8FF) after its start; an
/// image cut short by the end of the file is the last, unreadable frame.
final class MJPEGFileSource: FrameSource {
  let info: SourceInfo
  private let file: RecordingFile
  private let timeline: TimestampsTimeline
  /// The part of the file being searched; `window[0]` is at `windowStart`.
  private var window: [UInt8] = []
  private var windowStart: Int64 = 0
  /// Where in `window` the search for the next image resumes.
  private var cursor = 0
  private var nextIndex: Int64 = 0
  private var isClosed = false
  /// Two images' bytes in turn, as the AVI reader keeps its chunks: the run
  /// holds the frame before while it reads the next (a frame still held
  /// elsewhere is copied, not overwritten).
  private var images: [[UInt8]] = [[], []]
  private var imageIndex = 0

  static let readSize = 1 << 20
  /// An image without an end marker this far from its start is garbage that
  /// happens to begin with FFD8FF; giving up bounds the memory it can take.
  static let maximumImageBytes = 64 << 20

  init(file: RecordingFile, context: RecordingContext) throws(CaptureError) {
    self.file = file
    timeline = context.timeline()
    // A read and what is left of the image before it: the window's storage
    // is then set from the first frame, not grown in the middle of a run.
    window.reserveCapacity(2 * Self.readSize)
    let head = try file.read(at: 0, count: Self.readSize)
    let size = head.withUnsafeBufferPointer { buffer -> (width: Int, height: Int)? in
      guard let start = MJPEGMarkers.findStartOfImage(in: buffer, from: 0, to: buffer.count) else { return nil }
      return MJPEGMarkers.imageSize(of: Array(buffer[start...]))
    }
    info = SourceInfo(
      kind: RecordingSource.Format.mjpeg.rawValue, name: context.path, width: size?.width, height: size?.height,
      fps: timeline.framesPerSecond, details: context.details(timeline: timeline))
  }

  private var windowReachesEnd: Bool { windowStart + Int64(window.count) >= file.size }

  /// Drops the bytes before `position` in the window.
  private func discard(upTo position: Int) {
    guard position > 0 else { return }
    window.removeFirst(position)
    windowStart += Int64(position)
    cursor = max(0, cursor - position)
  }

  /// Reads at least `readSize` more bytes, and as many as the window holds,
  /// so that rescanning a growing image costs twice its size at most. The
  /// bytes go straight into the window, whose storage stays once it has
  /// grown: reading allocates nothing then.
  private func readMore() throws(CaptureError) {
    let start = windowStart + Int64(window.count)
    let wanted = Int(min(Int64(max(Self.readSize, window.count)), file.size - start))
    guard wanted > 0 else { return }
    let kept = window.count
    window.append(contentsOf: repeatElement(0, count: wanted))
    // `withUnsafeMutableBytes` rethrows untyped errors: carry the typed one out.
    let result = window.withUnsafeMutableBytes { buffer in
      Result { () throws(CaptureError) -> Int in
        try file.read(at: start, into: UnsafeMutableRawBufferPointer(rebasing: buffer[kept...]))
      }
    }
    let got = try result.get()
    if got < wanted { window.removeLast(wanted - got) }
  }

  func next() throws(CaptureError) -> CapturedFrame? {
    guard !isClosed else { return nil }
    while true {
      let found = window.withUnsafeBufferPointer {
        MJPEGMarkers.findStartOfImage(in: $0, from: cursor, to: $0.count)
      }
      guard let start = found else {
        if windowReachesEnd {
          cursor = window.count
          return nil
        }
        // Keep two bytes: a start marker may straddle the next read.
        discard(upTo: max(cursor, window.count - 2))
        try readMore()
        continue
      }
      discard(upTo: start)
      return try readImage()
    }
  }

  /// Reads the image that starts at the beginning of the window.
  private func readImage() throws(CaptureError) -> CapturedFrame {
    while true {
      let scan = window.withUnsafeBufferPointer { MJPEGMarkers.scan($0, from: 0, to: $0.count) }
      switch scan {
      case .complete(let end):
        cursor = end
        imageIndex ^= 1
        images[imageIndex].removeAll(keepingCapacity: true)
        images[imageIndex].append(contentsOf: window[0..<end])
        return frame(.jpeg(images[imageIndex]))
      case .broken(let reason):
        cursor = 2
        return frame(.unreadable(reason: reason))
      case .needsMoreData:
        if windowReachesEnd {
          cursor = window.count
          return frame(.unreadable(reason: "truncated: the file ends inside this image"))
        }
        if window.count > Self.maximumImageBytes {
          cursor = 2
          return frame(.unreadable(reason: "no end of image marker within 64 MiB of its start"))
        }
        try readMore()
      }
    }
  }

  private func frame(_ payload: FramePayload) -> CapturedFrame {
    let index = nextIndex
    nextIndex += 1
    return CapturedFrame(index: index, t: timeline.time(ofFrame: index), payload: payload)
  }

  func close() {
    isClosed = true
    file.close()
    window = []
    images = [[], []]
  }
}
