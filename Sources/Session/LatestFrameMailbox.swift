import Capture
import Foundation
import Scripting

/// One slot between a capture thread and the frame loop: the capture thread
/// always replaces what is there, so the loop gets the newest frame and the
/// frames it never saw are counted as dropped.
final class LatestFrameMailbox: @unchecked Sendable {
  /// How long ``close()`` waits for the capture thread to leave the source:
  /// a camera delivers a frame or times out a wait (1 s) within it.
  static let closeWait = 1.5

  private let condition = NSCondition()
  private var slot: CapturedFrame?
  private var droppedSinceTake = 0
  private var finished = false
  private var failure: CaptureError?
  private var stopping = false
  /// The capture thread has returned, and no longer touches the source.
  private var threadDone = false
  /// ``close()`` stopped waiting: the capture thread closes the source as it leaves.
  private var threadCloses = false
  private var thread: Thread?
  private let box: SourceBox

  init(source: any FrameSource) {
    let box = SourceBox(source)
    self.box = box
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
    defer {
      condition.lock()
      threadDone = true
      let closes = threadCloses
      condition.broadcast()
      condition.unlock()
      if closes { source.close() }
    }
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

  /// Stops the capture thread and closes the source once the thread has
  /// left it, never while it reads: closing a camera unmaps the buffers a
  /// frame may be being copied from. A thread still waiting on a stalled
  /// camera after ``closeWait`` closes the source itself on its way out.
  func close() {
    condition.lock()
    stopping = true
    condition.broadcast()
    let deadline = Date(timeIntervalSinceNow: Self.closeWait)
    while !threadDone && condition.wait(until: deadline) {}
    let done = threadDone
    if !done { threadCloses = true }
    condition.unlock()
    if done { box.source.close() }
  }
}
