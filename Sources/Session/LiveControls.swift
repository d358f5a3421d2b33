import Foundation
import JSONCore
import Synchronization

/// What whoever watches a live run can tell it: the preview's buttons and
/// HTTP API, the terminal's keys, the file watcher. docs/preview.md.
public enum LiveControl: Sendable, Equatable {
  /// No frame reaches the flow and its timers stand still (HyperSecure's pauseFR).
  case pause
  /// Frames reach the flow again (resumeFR); settings sent while paused apply now.
  case resume
  /// The flow starts over on the same input.
  case restart
  /// The run ends with reason `closed` and every output complete (LUNA ID's CloseCameraCommand).
  case close
  /// A command the flow takes with `ctx.command(name)`: `best_shot`
  /// starts the best-shot search now (LUNA ID's StartBestShotSearchCommand).
  case command(String)
  /// `key=value` texts, as `--set` takes them; only while paused, applied on resume.
  case settings([String])
  /// Files the flow was loaded from changed: load it again and start over,
  /// or keep the running flow when the new one does not load.
  case reload(changed: [String])

  /// The `action` of its `control` event.
  public var action: String {
    switch self {
    case .pause: "pause"
    case .resume: "resume"
    case .restart: "restart"
    case .close: "close"
    case .command: "command"
    case .settings: "settings"
    case .reload: "reload"
    }
  }
}

/// How the session took a control.
public struct ControlReply: Sendable, Equatable {
  public enum Outcome: Sendable, Equatable {
    case done
    /// Not now (settings while running, a control after close): HTTP 409.
    case refused
    /// The control itself is wrong (a setting's value, a flow that does not load): HTTP 400.
    case invalid
  }

  public var outcome: Outcome
  public var message: String

  public init(_ outcome: Outcome, _ message: String) {
    self.outcome = outcome
    self.message = message
  }
}

/// Controls on their way to the frame loop: any thread posts, the loop
/// takes them between frames. Bounded, so that a client that posts and
/// never reads its answers cannot grow it; the loop never waits on a
/// client (a reply is a call that returns at once).
public final class ControlMailbox: @unchecked Sendable {
  public struct Request: Sendable {
    public var control: LiveControl
    /// Who sent it: `api`, `page`, `keyboard`, `watch`.
    public var source: String
    public var reply: @Sendable (ControlReply) -> Void
    /// Called as the session takes it: false when the sender has stopped
    /// waiting (it was told the run did not take the control in time), and
    /// the session then drops it unseen. Once true, the sender waits for
    /// the reply.
    public var claim: @Sendable () -> Bool
  }

  public let capacity: Int
  private let condition = NSCondition()
  private var requests: [Request] = []
  /// Read by the loop on every frame without taking the lock.
  private let hasRequests = Atomic<Bool>(false)

  public init(capacity: Int = 16) {
    self.capacity = capacity
    requests.reserveCapacity(capacity)
  }

  /// Queues a control; false (and no reply) when the mailbox is full.
  @discardableResult
  public func post(
    _ control: LiveControl, from source: String, reply: @escaping @Sendable (ControlReply) -> Void = { _ in },
    claim: @escaping @Sendable () -> Bool = { true }
  ) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    guard requests.count < capacity else { return false }
    requests.append(Request(control: control, source: source, reply: reply, claim: claim))
    hasRequests.store(true, ordering: .releasing)
    condition.broadcast()
    return true
  }

  /// The oldest control still wanted, if any (the session takes them between frames).
  public func take() -> Request? {
    guard hasRequests.load(ordering: .acquiring) else { return nil }
    condition.lock()
    defer { condition.unlock() }
    while !requests.isEmpty {
      let request = requests.removeFirst()
      hasRequests.store(!requests.isEmpty, ordering: .releasing)
      if request.claim() { return request }
    }
    return nil
  }

  /// Waits up to `seconds` for a control to arrive.
  func wait(seconds: Double) {
    condition.lock()
    defer { condition.unlock() }
    if requests.isEmpty { _ = condition.wait(until: Date(timeIntervalSinceNow: seconds)) }
  }
}
