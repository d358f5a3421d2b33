import Foundation
import Interrupts

/// One slot between a capture thread and the frame loop: the capture thread
/// always replaces what is there, so the loop gets the newest frame and the
/// frames it never saw are counted as dropped.
public final class LatestFrameMailbox: @unchecked Sendable {
  /// How long ``close()`` waits for the capture thread to leave the source:
  /// a camera delivers a frame or times out a wait (1 s) within it.
  public static let closeWait = 1.5

  private let slot = BoundedHandoff<CapturedFrame, CaptureError>(capacity: 1, whenFull: .replaceOldest)
  private let condition = NSCondition()
  /// The capture thread has returned, and no longer touches the source.
  private var threadDone = false
  /// ``close()`` stopped waiting: the capture thread closes the source as it leaves.
  private var threadCloses = false
  private let box: SourceBox

  public init(source: any FrameSource) {
    let box = SourceBox(source)
    self.box = box
    let thread = Thread { [weak self] in self?.run(box.source) }
    thread.name = "workbench-capture"
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
    while !slot.isClosed {
      do {
        guard let frame = try source.next() else {
          slot.close()
          return
        }
        slot.put(Self.owned(frame))
      } catch {
        slot.close(failing: error)
        return
      }
    }
  }

  /// A frame whose pixels no longer belong to the source, which reuses its
  /// buffers for the next frame.
  private static func owned(_ frame: CapturedFrame) -> CapturedFrame {
    guard case .image(let image) = frame.payload else { return frame }
    return CapturedFrame(index: frame.index, t: frame.t, payload: .image(image.copy()))
  }

  /// Waits for the newest frame; nil when the source ended. Ctrl-C ends the
  /// wait even when no frame comes.
  public func take() throws(CaptureError) -> (CapturedFrame?, dropped: Int) {
    guard let (frame, dropped) = try slot.take(interrupted: { Interrupts.pending }) else { return (nil, 0) }
    return (frame, dropped)
  }

  /// Stops the capture thread and closes the source once the thread has
  /// left it, never while it reads: closing a camera unmaps the buffers a
  /// frame may be being copied from. A thread still waiting on a stalled
  /// camera after ``closeWait`` closes the source itself on its way out.
  public func close() {
    slot.close()
    condition.lock()
    let deadline = Date(timeIntervalSinceNow: Self.closeWait)
    while !threadDone && condition.wait(until: deadline) {}
    let done = threadDone
    if !done { threadCloses = true }
    condition.unlock()
    if done { box.source.close() }
  }
}
