import Capture
import Foundation
import Scripting

/// One slot between a capture thread and the frame loop: the capture thread
/// always replaces what is there, so the loop gets the newest frame and the
/// frames it never saw are counted as dropped.
final class LatestFrameMailbox: @unchecked Sendable {
  private let condition = NSCondition()
  private var slot: CapturedFrame?
  private var droppedSinceTake = 0
  private var finished = false
  private var failure: CaptureError?
  private var stopping = false
  private var thread: Thread?

  init(source: any FrameSource) {
    let box = SourceBox(source)
    let thread = Thread { [weak self] in self?.run(box.source) }
    thread.name = "workbench-capture"
    self.thread = thread
    thread.start()
  }

  private final class SourceBox: @unchecked Sendable {
    let source: any FrameSource
    init(_ source: any FrameSource) { self.source = source }
  }

  private func run(_ source: any FrameSource) {
    while true {
      condition.lock()
      let stop = stopping
      condition.unlock()
      if stop { return }
      let result: Result<CapturedFrame?, CaptureError>
      do {
        result = .success(try source.next())
      } catch {
        result = .failure(error)
      }
      condition.lock()
      switch result {
      case .success(let frame?):
        if slot != nil { droppedSinceTake += 1 }
        slot = LatestFrameMailbox.owned(frame)
      case .success(nil):
        finished = true
      case .failure(let error):
        failure = error
      }
      condition.broadcast()
      condition.unlock()
      if case .success(nil) = result { return }
      if case .failure = result { return }
    }
  }

  /// A frame whose pixels no longer belong to the source, which reuses its
  /// buffers for the next frame.
  private static func owned(_ frame: CapturedFrame) -> CapturedFrame {
    guard case .image(let image) = frame.payload else { return frame }
    return CapturedFrame(index: frame.index, t: frame.t, payload: .image(image.copy()))
  }

  /// Waits for the newest frame; nil when the source ended.
  func take() throws(CaptureError) -> (CapturedFrame?, dropped: Int) {
    condition.lock()
    defer { condition.unlock() }
    // Short waits, so that Ctrl-C is noticed even when no frame comes.
    while slot == nil && !finished && failure == nil && !stopping && !Interrupts.pending {
      _ = condition.wait(until: Date(timeIntervalSinceNow: 0.1))
    }
    if let frame = slot {
      slot = nil
      let dropped = droppedSinceTake
      droppedSinceTake = 0
      return (frame, dropped)
    }
    if let failure { throw failure }
    return (nil, 0)
  }

  func stop() {
    condition.lock()
    stopping = true
    condition.broadcast()
    condition.unlock()
  }
}
