import Foundation
import Testing

@testable import Capture

private struct Broken: Error, Equatable {}

/// A safety limit on waiting for another thread, never a timing check: a
/// correct hand-off signals long before it.
private func limit() -> DispatchTime { .now() + 30 }

@Suite("The bounded hand-off")
struct BoundedHandoffTests {
  @Test("a producer that waits for room never has more than capacity waiting")
  func capacityHoldsWhenWaiting() throws {
    let handoff = BoundedHandoff<Int, Never>(capacity: 3, whenFull: .waitForRoom)
    for value in 0..<3 { #expect(handoff.put(value) == .accepted) }
    #expect(handoff.count == 3)
    let putReturned = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      handoff.put(3)
      putReturned.signal()
    }
    // Full: the fourth put waits. (A put that returned would be a failure
    // whenever it is seen; the wait only bounds how long it is looked for.)
    #expect(putReturned.wait(timeout: .now() + 0.2) == .timedOut)
    #expect(handoff.count == 3)
    #expect(handoff.take()?.element == 0)
    #expect(putReturned.wait(timeout: limit()) == .success)
    #expect(handoff.count == 3)
    #expect(handoff.dropped == 0)
  }

  @Test("a full hand-off that drops the newest keeps capacity and counts each drop")
  func dropNewestCounts() throws {
    let handoff = BoundedHandoff<Int, Never>(capacity: 2, whenFull: .dropNewest)
    let outcomes = (0..<5).map { handoff.put($0) }
    #expect(outcomes == [.accepted, .accepted, .dropped, .dropped, .dropped])
    #expect(handoff.count == 2)
    #expect(handoff.dropped == 3)
    #expect(handoff.take()?.element == 0)
    #expect(handoff.take()?.element == 1)
  }

  @Test("a full hand-off that replaces the oldest gives the newest, with the drops since the last take")
  func replaceOldestCounts() throws {
    let handoff = BoundedHandoff<Int, Never>(capacity: 1, whenFull: .replaceOldest)
    for value in 1...3 { #expect(handoff.put(value) == .accepted) }
    let first = handoff.take()
    #expect(first?.element == 3)
    #expect(first?.dropped == 2)
    handoff.put(4)
    let second = handoff.take()
    #expect(second?.element == 4)
    #expect(second?.dropped == 0)
    #expect(handoff.dropped == 2)
  }

  @Test("elements come out in the order they went in, across threads")
  func orderIsKept() throws {
    let handoff = BoundedHandoff<Int, Never>(capacity: 4, whenFull: .waitForRoom)
    let total = 2_000
    Thread.detachNewThread {
      for value in 0..<total { handoff.put(value) }
      handoff.close()
    }
    var received: [Int] = []
    while let (value, dropped) = handoff.take() {
      #expect(dropped == 0)
      #expect(handoff.count <= 4)
      received.append(value)
    }
    #expect(received == Array(0..<total))
  }

  @Test("the newest elements keep their order when older ones are replaced")
  func orderIsKeptWhenReplacing() throws {
    let handoff = BoundedHandoff<Int, Never>(capacity: 3, whenFull: .replaceOldest)
    for value in 0..<7 { handoff.put(value) }
    handoff.close()
    var received: [Int] = []
    while let (value, _) = handoff.take() { received.append(value) }
    #expect(received == [4, 5, 6])
  }

  @Test("closing wakes a consumer waiting for an element")
  func closeWakesWaitingConsumer() throws {
    let handoff = BoundedHandoff<Int, Never>(capacity: 1, whenFull: .waitForRoom)
    let consumerDone = DispatchSemaphore(value: 0)
    let result = Box<Int?>(0)
    Thread.detachNewThread {
      result.value = handoff.take()?.element
      consumerDone.signal()
    }
    handoff.close()
    #expect(consumerDone.wait(timeout: limit()) == .success)
    #expect(result.value == nil)
  }

  @Test("closing wakes a consumer that waits with an interrupt check")
  func closeWakesConsumerCheckingForInterrupts() throws {
    let handoff = BoundedHandoff<Int, Never>(capacity: 1, whenFull: .waitForRoom)
    let waiting = DispatchSemaphore(value: 0)
    let consumerDone = DispatchSemaphore(value: 0)
    let result = Box<Int?>(0)
    Thread.detachNewThread {
      // The check runs under the hand-off's lock just before each wait, so
      // `close` below can only run once the consumer waits.
      result.value =
        handoff.take(interrupted: {
          waiting.signal()
          return false
        })?.element
      consumerDone.signal()
    }
    #expect(waiting.wait(timeout: limit()) == .success)
    handoff.close()
    #expect(consumerDone.wait(timeout: limit()) == .success)
    #expect(result.value == nil)
  }

  @Test("an interrupt ends a consumer's wait though nothing comes")
  func interruptEndsTheWait() throws {
    let handoff = BoundedHandoff<Int, Never>(capacity: 1, whenFull: .waitForRoom)
    let interrupted = Box(false)
    let checked = DispatchSemaphore(value: 0)
    let consumerDone = DispatchSemaphore(value: 0)
    let result = Box<Int?>(0)
    Thread.detachNewThread {
      result.value =
        handoff.take(interrupted: {
          checked.signal()
          return interrupted.value
        })?.element
      consumerDone.signal()
    }
    #expect(checked.wait(timeout: limit()) == .success)
    interrupted.value = true
    #expect(consumerDone.wait(timeout: limit()) == .success)
    #expect(result.value == nil)
    #expect(!handoff.isClosed)
  }

  @Test("closing wakes a producer waiting for room, and refuses its element")
  func closeWakesWaitingProducer() throws {
    let handoff = BoundedHandoff<Int, Never>(capacity: 1, whenFull: .waitForRoom)
    handoff.put(0)
    let producerDone = DispatchSemaphore(value: 0)
    let outcome = Box<BoundedHandoff<Int, Never>.PutOutcome?>(nil)
    Thread.detachNewThread {
      outcome.value = handoff.put(1)
      producerDone.signal()
    }
    handoff.close()
    #expect(producerDone.wait(timeout: limit()) == .success)
    #expect(outcome.value == .closed)
    #expect(!handoff.waitForRoom())
    // What was in it before closing is still taken.
    #expect(handoff.take()?.element == 0)
    #expect(handoff.take() == nil)
  }

  @Test("a failure comes after the elements that were put before it")
  func failureAfterTheElements() throws {
    let handoff = BoundedHandoff<Int, Broken>(capacity: 2, whenFull: .waitForRoom)
    handoff.put(1)
    handoff.put(2)
    handoff.close(failing: Broken())
    #expect(try handoff.take()?.element == 1)
    #expect(try handoff.take()?.element == 2)
    #expect(throws: Broken()) { try handoff.take() }
  }

  @Test("a pool holds its elements from the start and never waits to give one out")
  func poolStartsFull() throws {
    let pool = BoundedHandoff<Int, Never>(capacity: 2, whenFull: .waitForRoom, holding: [10, 11])
    #expect(pool.takeIfReady() == 10)
    #expect(pool.takeIfReady() == 11)
    #expect(pool.takeIfReady() == nil)
    #expect(pool.put(10) == .accepted)
    #expect(pool.take()?.element == 10)
  }
}

/// A value written on one thread and read on another after a semaphore.
private final class Box<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: Value
  init(_ value: Value) { stored = value }
  var value: Value {
    get { lock.withLock { stored } }
    set { lock.withLock { stored = newValue } }
  }
}
