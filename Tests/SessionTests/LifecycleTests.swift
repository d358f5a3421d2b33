import Diagnostics
import Flows
import FlowsTesting
import Foundation
import JSONCore
import Measurements
import Reporting
import RunComposition
import SimulatedCamera
import TestSupport
import Testing

@testable import Session

/// A flow that passes when `probe.value` reaches 15, with a step timeout
/// of 3 s: time spent paused must not count against it.
let probeFlow = """
  local wb = require "wb"
  return wb.flow { name = "probe", time_limit = 0, steps = {
    wb.threshold { name = "reach", field = "probe.value", above = 14, timeout = 3 } } }
  """

@Suite("The session's lifecycle")
struct LifecycleTests {
  func session(frames: Int = 40, flow: String = probeFlow) throws -> (RunSession, InMemoryEventSink) {
    let fixture = try FlowFixture(flow)
    let options = RunOptions(
      flow: fixture.options(declarations: RunSettings.declarations), input: .file(try countingTrace(frames: frames)))
    let session = RunSession(options, logger: testLogger)
    let sink = InMemoryEventSink()
    session.addEventSink(sink)
    return (session, sink)
  }

  @Test("open, step to the end and close: one session record, one result, the sinks finished")
  func wholeRun() throws {
    let (session, sink) = try session()
    #expect(session.state == .created)
    #expect(session.open())
    #expect(session.state == .running)
    var steps = 0
    while session.step() { steps += 1 }
    #expect(session.state == .ended)
    let outcome = session.close()
    #expect(session.state == .closed)
    #expect(outcome.status == .passed)
    #expect(sink.finished)
    #expect(sink.events(ofType: "session").count == 1)
    #expect(sink.events(ofType: "result").count == 1)
    #expect(sink.events.last?.type == "result")
    #expect(sink.events.last?["frames"] == .integer(Int64(steps + 1)))
    // Closing twice gives the same outcome and no second result.
    #expect(session.close().status == .passed)
    #expect(sink.events(ofType: "result").count == 1)
  }

  @Test("closing a run before its flow finished ends it with reason closed")
  func closedEarly() throws {
    let (session, sink) = try session()
    #expect(session.open())
    for _ in 0..<5 { #expect(session.step()) }
    let outcome = session.close()
    #expect(outcome.status == .failed)
    #expect(outcome.result?.reason == "closed")
    let result = try #require(sink.events.last)
    #expect(result.type == "result")
    #expect(result["reason"] == "closed")
    #expect(result["frames"] == 5)
    #expect(sink.events(ofType: "step").last?["reason"] == "closed")
  }

  @Test("paused, a recording is not read and the flow gets no frame; resumed, it goes on where it was")
  func pauseRecording() throws {
    let (session, sink) = try session()
    #expect(session.open())
    for _ in 0..<3 { session.step() }
    session.pause()
    #expect(session.state == .paused)
    for _ in 0..<5 { #expect(session.step()) }
    session.resume()
    while session.step() {}
    let outcome = session.close()
    #expect(outcome.status == .passed)
    let result = try #require(sink.events.last)
    // Frames 0–15: none was lost or skipped while paused.
    #expect(result["frames"] == 16)
    #expect(sink.events(ofType: "control").map { $0["action"]?.stringValue } == ["pause", "resume"])
  }

  @Test("paused on a camera, the time that passed is taken out of the flow's clock")
  func pauseClock() {
    var clock = PauseClock()
    #expect(clock.flowTime(5.0) == 5.0)
    #expect(clock.flowTime(5.1) == 5.1)
    clock.resumeLive()
    // 2 s later the camera's next frame comes one frame interval after the last.
    #expect(abs(clock.flowTime(7.2) - 5.2) < 1e-9)
    #expect(abs(clock.flowTime(7.3) - 5.3) < 1e-9)
  }

  @Test("restart starts the flow over on a recording from its first frame")
  func restart() throws {
    let (session, sink) = try session()
    #expect(session.open())
    for _ in 0..<8 { session.step() }
    try session.restart()
    #expect(session.state == .running)
    while session.step() {}
    let outcome = session.close()
    #expect(outcome.status == .passed)
    #expect(sink.events(ofType: "control").map { $0["action"]?.stringValue } == ["restart"])
    // The second run has its own session record and counts its own 16 frames from frame 0.
    let sessions = sink.events(ofType: "session")
    #expect(sessions.count == 2)
    #expect(sessions.last?.frame == 0)
    #expect(sink.events.last?["frames"] == 16)
    #expect(sink.events(ofType: "result").count == 1)
  }

  @Test("a restart with a flow that does not load throws, and the run goes on as it was")
  func restartBroken() throws {
    let fixture = try FlowFixture(probeFlow)
    let options = RunOptions(
      flow: fixture.options(declarations: RunSettings.declarations), input: .file(try countingTrace(frames: 40)))
    let session = RunSession(options, logger: testLogger)
    #expect(session.open())
    for _ in 0..<4 { session.step() }
    try "return wb.flow {".write(toFile: fixture.path, atomically: true, encoding: .utf8)
    #expect(throws: WorkbenchError.self) { try session.restart() }
    #expect(session.state == .running)
    while session.step() {}
    #expect(session.close().status == .passed)
  }

  @Test("an input wrapper sees every frame before the flow (how QA faults reach a run)")
  func inputWrapper() throws {
    let (session, sink) = try session()
    session.wrapInput { input, _ in EveryOtherFrame(input) }
    #expect(session.open())
    while session.step() {}
    _ = session.close()
    // Frames 1, 3, …, 15: the flow never saw the even ones.
    #expect(sink.events.last?["frames"] == 8)
  }

  @Test("a flow that does not load still leaves a result, through the one ending path")
  func notLoaded() throws {
    let (session, sink) = try session(flow: "return wb.flow {")
    #expect(!session.open())
    #expect(session.state == .ended)
    let outcome = session.close()
    #expect(outcome.status == .usage)
    #expect(sink.events.map(\.type) == ["result"])
    #expect(sink.events.last?["reason"] == "script_error")
  }
}

/// Passes on every other frame of its input.
final class EveryOtherFrame: WrappingMeasurementInput {
  let base: any MeasurementInput
  init(_ base: any MeasurementInput) { self.base = base }

  func next(note: (InputNote) -> Void) throws(WorkbenchError) -> MeasurementFrame? {
    _ = try base.next(note: note)
    return try base.next(note: note)
  }

}
