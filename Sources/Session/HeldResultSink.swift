import JSONCore
import Reporting

/// Passes a run's events on as they come, except its `result`, which waits
/// until ``release(adding:)``: the session finishes its outputs first, so
/// that the result can name the files they wrote and stays the last event.
/// An event that comes after a held result (a restart after the flow
/// ended) lets it go first, so the order of events never changes.
final class HeldResultSink: EventSink {
  private let next: any EventSink
  private var held: Event?
  /// Sinks that see every event as it comes, the result too (without its
  /// `outputs`): a live view shows the result when the flow decides.
  var early: [any EventSink] = []

  init(_ next: any EventSink) { self.next = next }

  func emit(_ event: Event) {
    release()
    for sink in early { sink.emit(event) }
    if event.type == "result" {
      held = event
    } else {
      next.emit(event)
    }
  }

  /// Emits the held result, if any, with `fields` added.
  func release(adding fields: JSONObject = JSONObject()) {
    guard var event = held else { return }
    held = nil
    for (key, value) in fields { event.fields[key] = value }
    next.emit(event)
  }

  /// The session finishes the sinks behind this one itself.
  func finish() {}
}
