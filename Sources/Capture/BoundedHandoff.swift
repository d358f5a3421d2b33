import Foundation

/// A bounded queue between one producing thread and one consuming thread
/// (a decoder and the frame loop, a camera and the frame loop, the frame loop
/// and an encoder). At most `capacity` elements wait; when it is full the
/// producer waits, or an element is dropped and counted, as `whenFull` says.
/// Elements are taken in the order they were put.
///
/// Either side may close it: later puts are refused and every wait ends. The
/// consumer still takes what is in it, then gets nil, or the failure the
/// producer closed it with.
final class BoundedHandoff<Element, Failure: Error>: @unchecked Sendable {
  enum WhenFull: Sendable {
    /// The producer waits until the consumer takes one: nothing is lost.
    case waitForRoom
    /// The new element is dropped.
    case dropNewest
    /// The oldest element is dropped, so the consumer gets the newest.
    case replaceOldest
  }

  enum PutOutcome: Sendable, Equatable {
    /// In the queue (for `replaceOldest`, maybe in place of an older one).
    case accepted
    /// Dropped because the queue was full (`dropNewest`).
    case dropped
    /// Refused: the hand-off is closed.
    case closed
  }

  /// How often a consumer waiting with an interrupt check looks at it: no
  /// element may come at all, and Ctrl-C must still be noticed.
  static var interruptCheckInterval: TimeInterval { 0.1 }

  let capacity: Int
  let whenFull: WhenFull
  private let condition = NSCondition()
  private var elements: [Element]
  private var closed = false
  private var failure: Failure?
  private var droppedTotal = 0
  private var droppedSinceTake = 0

  /// `elements` are there from the start (a pool of buffers handed round).
  init(capacity: Int, whenFull: WhenFull, holding elements: [Element] = []) {
    precondition(capacity > 0 && elements.count <= capacity, "a hand-off holds 1 to capacity elements")
    self.capacity = capacity
    self.whenFull = whenFull
    self.elements = elements
    self.elements.reserveCapacity(capacity)
  }

  /// Hands `element` to the consumer, or waits, drops or refuses it.
  @discardableResult
  func put(_ element: Element) -> PutOutcome {
    condition.lock()
    defer { condition.unlock() }
    if whenFull == .waitForRoom {
      while elements.count >= capacity && !closed { condition.wait() }
    }
    guard !closed else { return .closed }
    if elements.count >= capacity {
      droppedTotal += 1
      droppedSinceTake += 1
      if whenFull == .dropNewest { return .dropped }
      elements.removeFirst()
    }
    elements.append(element)
    condition.broadcast()
    return .accepted
  }

  /// Waits until there is room for one more element; false once closed.
  /// With one producer, the room is still there when it puts.
  func waitForRoom() -> Bool {
    condition.lock()
    defer { condition.unlock() }
    while elements.count >= capacity && !closed { condition.wait() }
    return !closed
  }

  /// Waits until `capacity` elements wait to be taken (true) or it is closed
  /// with fewer (false): for a test that needs the producer to be ahead.
  func waitUntilFull() -> Bool {
    condition.lock()
    defer { condition.unlock() }
    while elements.count < capacity && !closed { condition.wait() }
    return elements.count >= capacity
  }

  /// The next element, with the number dropped since the one taken before
  /// it. Waits for one; with `interrupted`, gives up (nil) once it says so,
  /// looking at it every ``interruptCheckInterval``. Once closed and empty:
  /// nil, or the failure it was closed with.
  func take(interrupted: (() -> Bool)? = nil) throws(Failure) -> (element: Element, dropped: Int)? {
    condition.lock()
    defer { condition.unlock() }
    while elements.isEmpty && !closed {
      guard let interrupted else {
        condition.wait()
        continue
      }
      if interrupted() { break }
      _ = condition.wait(until: Date(timeIntervalSinceNow: Self.interruptCheckInterval))
    }
    if let taken = removeOldest() { return taken }
    if let failure { throw failure }
    return nil
  }

  /// The next element if one is there; never waits.
  func takeIfReady() -> Element? {
    condition.lock()
    defer { condition.unlock() }
    return removeOldest()?.element
  }

  /// Refuses later puts and ends every wait; a take after the last element
  /// throws `failure` if given. Only the first close counts.
  func close(failing failure: Failure? = nil) {
    condition.lock()
    defer { condition.unlock() }
    guard !closed else { return }
    closed = true
    self.failure = failure
    condition.broadcast()
  }

  var isClosed: Bool {
    condition.lock()
    defer { condition.unlock() }
    return closed
  }

  /// Elements waiting to be taken.
  var count: Int {
    condition.lock()
    defer { condition.unlock() }
    return elements.count
  }

  /// Elements dropped because the queue was full, since it was made.
  var dropped: Int {
    condition.lock()
    defer { condition.unlock() }
    return droppedTotal
  }

  /// The lock is held by the caller.
  private func removeOldest() -> (element: Element, dropped: Int)? {
    guard !elements.isEmpty else { return nil }
    let element = elements.removeFirst()
    let dropped = droppedSinceTake
    droppedSinceTake = 0
    // A producer may be waiting for the room.
    condition.broadcast()
    return (element, dropped)
  }
}
