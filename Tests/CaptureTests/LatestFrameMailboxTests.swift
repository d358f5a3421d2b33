import Foundation
import Testing

@testable import Capture

/// Bytes the mailbox hands on without looking at them.
private let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xD9]

/// A live source whose reads take `readSeconds` (a camera waiting for its
/// next frame), and which notes being closed in the middle of one: a
/// camera's buffers are unmapped when it closes, under a frame being copied.
final class SlowReadingSource: FrameSource, @unchecked Sendable {
  let info = SourceInfo(kind: "camera", name: "slow")
  private let readSeconds: Double
  private let condition = NSCondition()
  private var reading = false
  private var index: Int64 = 0
  private var closedWhileReadingFlag = false
  private var closedFlag = false

  init(readSeconds: Double) {
    self.readSeconds = readSeconds
  }

  var closedWhileReading: Bool { locked { closedWhileReadingFlag } }
  var isClosed: Bool { locked { closedFlag } }

  func next() throws(CaptureError) -> CapturedFrame? {
    locked {
      reading = true
      condition.broadcast()
    }
    // The camera's wait for its next frame, not synchronisation.
    Thread.sleep(forTimeInterval: readSeconds)
    return locked {
      reading = false
      guard !closedFlag else { return nil }
      index += 1
      return CapturedFrame(index: index, t: Double(index) / 30, payload: .jpeg(jpeg))
    }
  }

  func close() {
    locked {
      if reading { closedWhileReadingFlag = true }
      closedFlag = true
      condition.broadcast()
    }
  }

  /// Returns once the capture thread is inside `next()`.
  func waitUntilReading() {
    condition.lock()
    while !reading { condition.wait() }
    condition.unlock()
  }

  /// Whether the source was closed before `limit`, a safety limit rather than a timing check.
  func waitUntilClosed(limit: TimeInterval) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    let deadline = Date(timeIntervalSinceNow: limit)
    while !closedFlag && condition.wait(until: deadline) {}
    return closedFlag
  }

  private func locked<Value>(_ body: () -> Value) -> Value {
    condition.lock()
    defer { condition.unlock() }
    return body()
  }
}

/// A source that gives `count` frames at once, then waits to be let go
/// before it ends: the frames pile up in the mailbox while nobody takes them.
final class BurstSource: FrameSource, @unchecked Sendable {
  let info = SourceInfo(kind: "camera", name: "burst")
  private let count: Int64
  private var index: Int64 = 0
  /// Signalled when the capture thread asks for the frame after the burst,
  /// so every frame of the burst is in the mailbox.
  let burstDelivered = DispatchSemaphore(value: 0)
  let end = DispatchSemaphore(value: 0)

  init(count: Int64) { self.count = count }

  func next() throws(CaptureError) -> CapturedFrame? {
    guard index < count else {
      burstDelivered.signal()
      end.wait()
      return nil
    }
    index += 1
    return CapturedFrame(index: index, t: Double(index) / 30, payload: .jpeg(jpeg))
  }

  func close() {}
}

@Suite("The latest-frame mailbox")
struct LatestFrameMailboxTests {
  @Test("the loop gets the newest frame, with the frames it never saw counted as dropped")
  func newestFrameAndDrops() throws {
    let source = BurstSource(count: 5)
    let mailbox = LatestFrameMailbox(source: source)
    source.burstDelivered.wait()
    let (frame, dropped) = try mailbox.take()
    #expect(frame?.index == 5)
    #expect(dropped == 4)
    source.end.signal()
    let (last, droppedAtEnd) = try mailbox.take()
    #expect(last == nil)
    #expect(droppedAtEnd == 0)
    mailbox.close()
  }

  @Test("closing waits for the capture thread to leave the source, then closes it")
  func closeWaitsForTheRead() throws {
    let source = SlowReadingSource(readSeconds: 0.3)
    let mailbox = LatestFrameMailbox(source: source)
    source.waitUntilReading()
    mailbox.close()
    #expect(source.isClosed)
    #expect(!source.closedWhileReading)
  }

  @Test("a capture thread still reading when closing stops waiting closes the source itself once out")
  func stalledReadClosesOnTheWayOut() throws {
    let source = SlowReadingSource(readSeconds: LatestFrameMailbox.closeWait + 0.5)
    let mailbox = LatestFrameMailbox(source: source)
    source.waitUntilReading()
    mailbox.close()
    #expect(source.waitUntilClosed(limit: 30))
    #expect(!source.closedWhileReading)
  }
}
