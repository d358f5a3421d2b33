import Capture
import Imaging

extension CapturedFrame: TimelineItem {
  func showing(_ earlier: CapturedFrame) -> CapturedFrame {
    var shown = self
    shown.payload = earlier.payload
    return shown
  }
}

/// A frame source with the scenario's frame and time faults applied: the
/// camera's own (unplug, replay) and the pictures' (corrupt, pixels,
/// occlude) here, the time faults from ``FaultTimeline``.
final class FaultySource: FrameSource {
  private let inner: any FrameSource
  private let faults: [Fault]
  private let timeline: FaultTimeline<CapturedFrame>
  private var pending: [CapturedFrame] = []
  private var replayBuffer: [CapturedFrame] = []
  private var replaysLeft: Int
  private var replayQueue: [CapturedFrame] = []
  private var replayOffset = 0.0
  private var replayIndexOffset: Int64 = 0
  private var innerEnded = false
  private let decoder = JPEGDecoder()
  /// Frames kept for a replay; more than this and the replay stops short.
  static let replayLimit = 3000

  init(_ inner: any FrameSource, faults: [Fault], seed: UInt64) {
    self.inner = inner
    self.faults = faults
    timeline = FaultTimeline(faults, seed: seed)
    var times = 1
    for fault in faults { if case .replay(let n) = fault { times = n } }
    replaysLeft = times - 1
  }

  var info: SourceInfo { inner.info }
  func close() { inner.close() }

  func next() throws(CaptureError) -> CapturedFrame? {
    while pending.isEmpty {
      guard let frame = try nextRaw() else {
        pending = timeline.remaining()
        break
      }
      try checkUnplugged(frame)
      pending = timeline.items(for: frame) { applyPictureFaults(&$0) }
    }
    return pending.isEmpty ? nil : pending.removeFirst()
  }

  /// The gap between frames, for faults that name one moment.
  private var frameGap: Double { 1 / (inner.info.fps ?? 30) }

  private func nextRaw() throws(CaptureError) -> CapturedFrame? {
    if !replayQueue.isEmpty {
      var frame = replayQueue.removeFirst()
      frame.t += replayOffset
      frame.index += replayIndexOffset
      return frame
    }
    if !innerEnded, let frame = try inner.next() {
      if replaysLeft > 0 && replayBuffer.count < FaultySource.replayLimit { replayBuffer.append(frame) }
      return frame
    }
    innerEnded = true
    guard replaysLeft > 0, let first = replayBuffer.first, let last = replayBuffer.last else { return nil }
    replaysLeft -= 1
    // The clip plays again straight after itself, on a clock that goes on.
    replayOffset += last.t - first.t + frameGap
    replayIndexOffset += last.index - first.index + 1
    replayQueue = replayBuffer
    return try nextRaw()
  }

  /// The camera goes away at the first frame at or after an unplug's time,
  /// whether or not that frame would be dropped.
  private func checkUnplugged(_ frame: CapturedFrame) throws(CaptureError) {
    for fault in faults {
      if case .unplug(let at) = fault, frame.t >= at {
        throw CaptureError(
          .disconnected, source: inner.info.name, "the camera went away (injected fault: unplug at \(at) s)",
          help: "this scenario unplugs the camera on purpose")
      }
    }
  }

  /// A corrupt frame stays corrupt (it is neither frozen nor remembered
  /// for a freeze); a frozen frame shows the picture from before, without
  /// this frame's pixel faults.
  private func applyPictureFaults(_ frame: inout CapturedFrame) {
    var degradations: [ImageDegradation] = []
    var patches: [(Double, Double, Double, Double)] = []
    for fault in faults {
      switch fault {
      case .pixels(let degradation, let from, let to) where frame.t >= from && frame.t <= to:
        degradations.append(degradation)
      case .occlude(let x, let y, let w, let h, let from, let to) where frame.t >= from && frame.t <= to:
        patches.append((x, y, w, h))
      case .corrupt(let index) where frame.index == index:
        if case .jpeg(var bytes) = frame.payload {
          // Keep the header, garble the entropy-coded data, cut the end.
          let start = min(bytes.count, 700)
          for offset in stride(from: start, to: bytes.count, by: 7) { bytes[offset] ^= 0x5A }
          bytes.removeLast(bytes.count / 3)
          frame.payload = .jpeg(bytes)
        } else {
          frame.payload = .unreadable(reason: "corrupt frame (injected fault)")
        }
        return
      default: break
      }
    }
    if timeline.freeze(&frame) { return }
    guard !degradations.isEmpty || !patches.isEmpty else { return }
    let image: ImageBuffer
    switch frame.payload {
    case .jpeg(let bytes):
      let decoded = ImageBuffer(format: .rgb8)
      do { try decoder.decode(bytes, into: decoded, format: .rgb8) } catch { return }
      image = decoded
    case .image(let picture): image = picture.copy()
    case .unreadable: return
    }
    for degradation in degradations { degradation.apply(to: image) }
    for (x, y, w, h) in patches {
      let x0 = max(0, Int(x * Double(image.width)))
      let y0 = max(0, Int(y * Double(image.height)))
      let x1 = min(image.width, Int((x + w) * Double(image.width)))
      let y1 = min(image.height, Int((y + h) * Double(image.height)))
      let channels = image.format.bytesPerPixel
      for row in y0..<max(y0, y1) {
        (image.pixels + (row * image.width + x0) * channels).initialize(
          repeating: 16, count: max(0, x1 - x0) * channels)
      }
    }
    frame.payload = .image(image)
  }
}
