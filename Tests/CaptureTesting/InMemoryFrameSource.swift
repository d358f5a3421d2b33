import Capture

/// `count` frames of one JPEG, made as fast as they are asked for and timed
/// at the source's rate (30 a second when its info gives none): a recording
/// or, with `info` of kind "camera", a live source that never waits.
public final class InMemoryFrameSource: FrameSource {
  public let info: SourceInfo
  private let jpeg: [UInt8]
  private let count: Int64
  private var index: Int64 = 0

  public init(jpeg: [UInt8], count: Int, info: SourceInfo = SourceInfo(kind: "test", name: "in-memory", fps: 30)) {
    self.jpeg = jpeg
    self.count = Int64(count)
    self.info = info
  }

  public func next() throws(CaptureError) -> CapturedFrame? {
    guard index < count else { return nil }
    defer { index += 1 }
    return CapturedFrame(index: index, t: Double(index) / (info.fps ?? 30), payload: .jpeg(jpeg))
  }

  public func close() {}
}
