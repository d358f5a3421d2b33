import Diagnostics
import JSONCore
import Reporting
import Testing

@Suite struct EventTests {
  @Test func keysComeInAFixedOrder() {
    let event = Event(
      type: "step", t: 1.5, frame: 45,
      fields: JSONObject([("name", "blink"), ("index", 3), ("state", "started"), ("timeout", 5.0)]))
    #expect(
      event.jsonLine == #"{"type":"step","t":1.5,"frame":45,"name":"blink","index":3,"state":"started","timeout":5}"#)
  }

  @Test func fieldsKeepTheirInsertionOrder() {
    var fields = JSONObject()
    fields["zulu"] = 1
    fields["alpha"] = ["nested": [true, nil]]
    fields["mike"] = "m"
    let event = Event(type: "x", t: 0, frame: 0, fields: fields)
    #expect(event.jsonLine == #"{"type":"x","t":0,"frame":0,"zulu":1,"alpha":{"nested":[true,null]},"mike":"m"}"#)
  }

  @Test func anEventWithoutFields() {
    #expect(Event(type: "tick", t: 2, frame: 60).jsonLine == #"{"type":"tick","t":2,"frame":60}"#)
  }

  @Test func timeIsRoundedToTheMicrosecond() {
    func t(_ value: Double) -> String {
      let line = Event(type: "x", t: value, frame: 0).jsonLine
      return String(line.dropFirst(#"{"type":"x","t":"#.count).prefix { $0 != "," })
    }
    #expect(t(0.1 + 0.2) == "0.3")
    #expect(t(12.3456789) == "12.345679")
    #expect(t(0.033333) == "0.033333")
    #expect(t(1.0000004) == "1")
    #expect(t(4.1) == "4.1")
    #expect(t(0.0000004) == "0")
    #expect(t(3600) == "3600")
    #expect(t(.nan) == "null")
  }

  @Test func roundingMakesNoisyTimesIdentical() {
    let a = Event(type: "x", t: 0.1 * 3, frame: 1)
    let b = Event(type: "x", t: 0.3, frame: 1)
    #expect(a.t != b.t)
    #expect(a.jsonLine == b.jsonLine)
  }

  @Test func fieldValuesAreNotRounded() {
    let event = Event(type: "x", t: 0, frame: 0, fields: JSONObject([("ratio", 0.123456789)]))
    #expect(event.jsonLine.hasSuffix(#""ratio":0.123456789}"#))
  }

  @Test func stringsAreEscaped() throws {
    let event = Event(type: "hint", t: 0, frame: 0, fields: JSONObject([("text", "say \"hi\"\n請")]))
    #expect(event.jsonLine == #"{"type":"hint","t":0,"frame":0,"text":"say \"hi\"\n請"}"#)
    #expect(try JSONParser.parse(event.jsonLine)["text"] == "say \"hi\"\n請")
  }

  @Test func fieldsCannotRepeatTheFixedKeys() throws {
    // A flow's own event fields must not forge the type, time or frame of the line.
    let event = Event(
      type: "flow.mark", t: 1, frame: 30,
      fields: JSONObject([("type", "result"), ("t", 99), ("note", "kept"), ("frame", -1), ("success", true)]))
    let line = event.jsonLine
    #expect(line == #"{"type":"flow.mark","t":1,"frame":30,"note":"kept","success":true}"#)
    let parsed = try JSONParser.parse(line)
    #expect(parsed["type"] == "flow.mark")
    #expect(parsed["t"] == 1)
    #expect(parsed["frame"] == 30)
    // The event itself still holds what it was given.
    #expect(event["type"] == "result")
  }

  @Test func writeAppendsToAnExistingWriter() {
    var writer = JSONWriter()
    Event(type: "a", t: 0, frame: 0).write(to: &writer)
    writer.raw(UInt8(ascii: "\n"))
    Event(type: "b", t: 1, frame: 1).write(to: &writer)
    #expect(writer.string == "{\"type\":\"a\",\"t\":0,\"frame\":0}\n{\"type\":\"b\",\"t\":1,\"frame\":1}")
  }

  @Test func subscriptReadsFields() {
    let event = Event(type: "x", t: 0, frame: 0, fields: JSONObject([("reason", "passed")]))
    #expect(event["reason"] == "passed")
    #expect(event["missing"] == nil)
  }
}

/// A sink whose finish fails, to test FanOutEventSink.
final class FailingSink: EventSink {
  private(set) var events: [Event] = []
  private(set) var finishCalls = 0
  let message: String

  init(_ message: String) { self.message = message }

  func emit(_ event: Event) { events.append(event) }

  func finish() throws(WorkbenchError) {
    finishCalls += 1
    throw WorkbenchError(.usage, message)
  }
}

@Suite struct EventSinkTests {
  private let events = [
    Event(type: "session", t: 0, frame: 0, fields: JSONObject([("flow", "f")])),
    Event(type: "step", t: 0.5, frame: 15),
    Event(type: "result", t: 1, frame: 30, fields: JSONObject([("success", true)])),
  ]

  @Test func inMemorySinkKeepsEverything() throws {
    let sink = InMemoryEventSink()
    for event in events { sink.emit(event) }
    #expect(sink.events == events)
    #expect(sink.events(ofType: "step") == [events[1]])
    #expect(sink.events(ofType: "none").isEmpty)
    #expect(!sink.finished)
    try sink.finish()
    #expect(sink.finished)
  }

  @Test func fanOutSendsEveryEventToEverySinkInOrder() throws {
    let first = InMemoryEventSink()
    let second = InMemoryEventSink()
    let fanOut = FanOutEventSink([first])
    fanOut.add(second)
    #expect(fanOut.sinks.count == 2)
    for event in events { fanOut.emit(event) }
    #expect(first.events == events)
    #expect(second.events == events)
    try fanOut.finish()
    #expect(first.finished && second.finished)
  }

  @Test func anEmptyFanOutIsFine() throws {
    let fanOut = FanOutEventSink()
    #expect(fanOut.sinks.isEmpty)
    fanOut.emit(events[0])
    #expect(throws: Never.self) { try fanOut.finish() }
    // What it got while empty went nowhere: a sink added later gets only what comes after.
    let late = InMemoryEventSink()
    fanOut.add(late)
    fanOut.emit(events[1])
    #expect(late.events == [events[1]])
  }

  @Test func fanOutFinishesEverySinkAndReportsTheFirstFailure() throws {
    let before = InMemoryEventSink()
    let failingA = FailingSink("first failure")
    let between = InMemoryEventSink()
    let failingB = FailingSink("second failure")
    let after = InMemoryEventSink()
    let fanOut = FanOutEventSink([before, failingA, between, failingB, after])
    fanOut.emit(events[2])
    let error = try #require(throws: WorkbenchError.self) { try fanOut.finish() }
    #expect(error.diagnostics.map(\.message) == ["first failure"])
    #expect(before.finished && between.finished && after.finished)
    #expect(failingA.finishCalls == 1 && failingB.finishCalls == 1)
    #expect(failingB.events == [events[2]])
  }
}
