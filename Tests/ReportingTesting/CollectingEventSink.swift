import Diagnostics
import Reporting

/// Keeps every event, and whether the sink was finished, for tests to read.
public final class CollectingEventSink: EventSink {
  public private(set) var events: [Event] = []
  public private(set) var finished = false

  public init() {}

  public func emit(_ event: Event) { events.append(event) }
  public func finish() throws(WorkbenchError) { finished = true }

  public func events(ofType type: String) -> [Event] { events.filter { $0.type == type } }
}
