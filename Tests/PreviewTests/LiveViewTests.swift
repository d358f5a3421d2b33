import JSONCore
import Reporting
import Testing

@testable import Preview

/// The run as the page and `/api/state` show it, from its events.
@Suite struct LiveViewTests {
  func event(_ type: String, frame: Int64, _ fields: [(String, JSONValue)] = []) -> Event {
    Event(type: type, t: Double(frame) / 30, frame: frame, fields: JSONObject(fields))
  }

  /// The answer to a restart holds the state just after it: a new run,
  /// running, with no result, not the ended run before it.
  @Test func aRestartIsTheNewRunAtOnceAndItsSessionDoesNotCountItTwice() {
    var view = LiveView()
    view.apply(event("session", frame: 0, [("order", .array(["look", "blink"]))]))
    view.apply(event("step", frame: 1, [("index", 1), ("name", "look"), ("state", "started")]))
    view.apply(event("step", frame: 9, [("index", 1), ("name", "look"), ("state", "passed")]))
    view.apply(event("status", frame: 9, [("status", "FACE_FOUND")]))
    view.apply(event("result", frame: 40, [("success", false), ("reason", "step_timeout")]))
    #expect(view.status == "ended")
    #expect(view.runs == 1)

    view.apply(event("control", frame: 40, [("action", "restart"), ("source", "api")]))
    #expect(view.status == "running")
    #expect(view.runs == 2)
    #expect(view.frame == 0, "the new run has had no frame yet")
    #expect(view.result == .null)
    #expect(view.statuses.isEmpty)
    #expect(view.steps.map(\.state) == ["waiting", "waiting"])

    view.apply(event("session", frame: 0, [("order", .array(["look", "blink"]))]))
    #expect(view.runs == 2, "the restarted run's session event is the same run")
    view.apply(event("control", frame: 3, [("action", "reload"), ("source", "watch")]))
    view.apply(event("session", frame: 0, [("order", .array(["look", "blink"]))]))
    #expect(view.runs == 3)
  }

  @Test func aReloadThatFailedIsNotANewRun() {
    var view = LiveView()
    view.apply(event("session", frame: 0))
    view.apply(event("control", frame: 5, [("action", "reload_failed"), ("error", "flow.lua:3: oops")]))
    #expect(view.runs == 1)
    #expect(view.reloadError != .null)
  }
}
