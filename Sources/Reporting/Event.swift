import Diagnostics
import JSONCore

/// One record of what happened in a run. Every event has a type, the input
/// time `t` (seconds) and the `frame` it happened at; the rest depends on
/// the type. See docs/events.md.
public struct Event: Sendable, Equatable {
  public var type: String
  public var t: Double
  public var frame: Int64
  public var fields: JSONObject

  public init(type: String, t: Double, frame: Int64, fields: JSONObject = JSONObject()) {
    self.type = type
    self.t = t
    self.frame = frame
    self.fields = fields
  }

  public subscript(field: String) -> JSONValue? { fields[field] }

  /// The keys every event line starts with; `fields` with these names are not written.
  public static let reservedKeys: Set<String> = ["type", "t", "frame"]

  /// The event as one line of JSON, keys in a fixed order.
  public func write(to writer: inout JSONWriter) {
    writer.raw("{\"type\":")
    writer.string(type)
    writer.raw(",\"t\":")
    writer.number(t.roundedToMicroseconds)
    writer.raw(",\"frame\":")
    writer.integer(frame)
    // A field named like a fixed key would write that key twice: the line
    // would not be valid JSON, and readers that keep the last value would
    // see a different type or time (a flow could forge a "result").
    for (key, value) in fields where !Event.reservedKeys.contains(key) {
      writer.raw(UInt8(ascii: ","))
      writer.key(key)
      writer.value(value)
    }
    writer.raw("}")
  }

  /// The event as the JSON object its line holds.
  public var jsonValue: JSONValue {
    var object = JSONObject([
      ("type", .string(type)), ("t", .number(t.roundedToMicroseconds)), ("frame", .integer(frame)),
    ])
    for (key, value) in fields where !Event.reservedKeys.contains(key) { object[key] = value }
    return .object(object)
  }

  public var jsonLine: String {
    var writer = JSONWriter()
    write(to: &writer)
    return writer.string
  }
}

/// Receives the events of a run.
public protocol EventSink: AnyObject {
  func emit(_ event: Event)
  /// Called once, after the `result` event.
  func finish() throws(WorkbenchError)
}

/// Writes events as JSON Lines to a file (atomically) or to stdout ("-").
public final class JSONLinesEventSink: EventSink {
  private let output: OutputFile
  private var writer = JSONWriter(capacity: 512)

  public init(path: String) throws(WorkbenchError) {
    output = try OutputFile(path: path)
  }

  public var writesToStandardOutput: Bool { output.isStandardOutput }

  public func emit(_ event: Event) {
    writer.reset()
    event.write(to: &writer)
    writer.raw(UInt8(ascii: "\n"))
    output.write(writer.bytes)
  }

  public func finish() throws(WorkbenchError) { try output.finish() }
}

/// Keeps events in memory (a QA scenario checks them, a benchmark counts
/// them, a test reads them), and whether the run finished the sink.
public final class InMemoryEventSink: EventSink {
  public private(set) var events: [Event] = []
  public private(set) var finished = false

  public init() {}

  public func emit(_ event: Event) { events.append(event) }
  public func finish() throws(WorkbenchError) { finished = true }

  public func events(ofType type: String) -> [Event] { events.filter { $0.type == type } }
}

/// Sends every event to several sinks.
public final class FanOutEventSink: EventSink {
  public private(set) var sinks: [any EventSink]

  public init(_ sinks: [any EventSink] = []) { self.sinks = sinks }

  public func add(_ sink: any EventSink) { sinks.append(sink) }

  public func emit(_ event: Event) {
    for sink in sinks { sink.emit(event) }
  }

  /// Finishes every sink, even when one fails; reports the first failure.
  public func finish() throws(WorkbenchError) {
    var firstError: WorkbenchError?
    for sink in sinks {
      do { try sink.finish() } catch { if firstError == nil { firstError = error } }
    }
    if let firstError { throw firstError }
  }
}
