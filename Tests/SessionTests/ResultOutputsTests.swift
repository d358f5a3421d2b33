import Capture
import Diagnostics
import FlowsTesting
import Foundation
import JSONCore
import Measurements
import Reporting
import RunComposition
import TestSupport
import Testing

@testable import Session

/// An output that notes whether the result had been emitted when it was
/// finished, and names a file it "wrote".
final class ProbeOutput: RunOutput {
  private let sink: InMemoryEventSink
  private(set) var resultsSeenAtFinish: Int?

  init(watching sink: InMemoryEventSink) { self.sink = sink }

  func frameProcessed(_ measurements: MeasurementFrame, captured: CapturedFrame?) {}
  func finish(_ run: FinishedRun) throws(WorkbenchError) { resultsSeenAtFinish = sink.events(ofType: "result").count }
  var written: JSONObject { JSONObject([("probe", .string("probe.txt"))]) }
}

@Suite("The result names the outputs")
struct ResultOutputsTests {
  func session(frames: Int = 40) throws -> (RunSession, InMemoryEventSink, ProbeOutput) {
    let fixture = try FlowFixture(probeFlow)
    let options = RunOptions(
      flow: fixture.options(declarations: RunSettings.declarations), input: .file(try countingTrace(frames: frames)))
    let session = RunSession(options, logger: testLogger)
    let sink = InMemoryEventSink()
    let probe = ProbeOutput(watching: sink)
    session.addEventSink(sink)
    session.addOutput(probe)
    return (session, sink, probe)
  }

  @Test("the result comes after every output finished, and its outputs object names what they wrote")
  func afterOutputs() throws {
    let (session, sink, probe) = try session()
    #expect(session.open())
    while session.step() {}
    // The flow has passed; its result waits for the outputs.
    #expect(session.state == .ended)
    #expect(sink.events(ofType: "result").isEmpty)
    #expect(session.close().status == .passed)
    #expect(probe.resultsSeenAtFinish == 0)
    let result = try #require(sink.events.last)
    #expect(result.type == "result")
    #expect(result["reason"] == "passed")
    #expect(result["outputs"] == .object(JSONObject([("probe", .string("probe.txt"))])))
    #expect(sink.events(ofType: "result").count == 1)
  }

  @Test("a restart after the result lets the first result out before the restart, in order")
  func restartAfterResult() throws {
    let (session, sink, _) = try session(frames: 20)
    #expect(session.open())
    while session.step() {}
    try session.restart()
    while session.step() {}
    _ = session.close()
    let types = sink.events.map(\.type).filter { $0 == "result" || $0 == "control" || $0 == "session" }
    #expect(types == ["session", "result", "control", "session", "result"])
    // Only the last result is written once the outputs are complete.
    #expect(sink.events(ofType: "result").first?["outputs"] == nil)
    #expect(sink.events(ofType: "result").last?["outputs"]?["probe"] == "probe.txt")
  }

  @Test("Ctrl-C: the outputs are finished, then the interrupted result names them")
  func interrupted() throws {
    let (session, sink, probe) = try session()
    #expect(session.open())
    for _ in 0..<3 { session.step() }
    session.end(.interrupted("SIGINT"))
    _ = session.close()
    #expect(probe.resultsSeenAtFinish == 0)
    let result = try #require(sink.events.last)
    #expect(result["reason"] == "interrupted")
    #expect(result["outputs"]?["probe"] == "probe.txt")
  }

  @Test("a run without outputs has no outputs object")
  func none() throws {
    let fixture = try FlowFixture(probeFlow)
    let options = RunOptions(
      flow: fixture.options(declarations: RunSettings.declarations), input: .file(try countingTrace(frames: 40)))
    let session = RunSession(options, logger: testLogger)
    let sink = InMemoryEventSink()
    session.addEventSink(sink)
    _ = session.run()
    #expect(sink.events.last?.type == "result")
    #expect(sink.events.last?["outputs"] == nil)
  }

  @Test("a camera recording: kept, with its frames and timestamps, and the files are there")
  func recording() throws {
    let folder = try TemporaryFolder(prefix: "result-outputs")
    defer { folder.remove() }
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "quality", step_timeout = 0, steps = {
        wb.range { field = "quality.darkness", min = 2, hold_ms = 100 } } }
      """)
    var options = RunOptions(
      flow: fixture.options(declarations: RunSettings.declarations),
      input: .camera(device: "/dev/video0", width: nil, height: nil, fps: nil))
    options.recordPath = folder.file("session.avi")
    let session = RunSession(
      options, logger: testLogger, openFrames: scriptedOpener(try scriptedCamera(frames: 5, thenUnplug: true)))
    let sink = InMemoryEventSink()
    session.addEventSink(sink)
    _ = session.run()
    let result = try #require(sink.events.last)
    let recording = try #require(result["outputs"]?["recording"])
    #expect(recording["path"] == .string(folder.file("session.avi")))
    #expect(recording["policy"] == "always")
    #expect(recording["kept"] == true)
    #expect(recording["frames"] == result["frames"])
    #expect(recording["timestamps"] == .string(folder.file("session.avi.timestamps.jsonl")))
    for key in ["path", "timestamps"] {
      #expect(FileManager.default.fileExists(atPath: recording[key]?.stringValue ?? ""))
    }
  }

  @Test("a camera that cannot be opened: the recording was never started, and the result says so")
  func recordingNotStarted() throws {
    let folder = try TemporaryFolder(prefix: "result-outputs")
    defer { folder.remove() }
    let fixture = try FlowFixture(probeFlow)
    var options = RunOptions(
      flow: fixture.options(declarations: RunSettings.declarations),
      input: .camera(device: "/dev/video9", width: nil, height: nil, fps: nil))
    options.recordPath = folder.file("session.avi")
    options.recordPolicy = .withFace
    let session = RunSession(
      options, logger: testLogger,
      openFrames: { _, _ throws(WorkbenchError) in throw WorkbenchError(.input, "no such video device") })
    let sink = InMemoryEventSink()
    session.addEventSink(sink)
    #expect(session.run().status == .input)
    let recording = try #require(sink.events.last?["outputs"]?["recording"])
    #expect(recording["kept"] == false)
    #expect(recording["policy"] == "with-face")
    #expect(recording["why"] == "the run ended before its input opened")
    #expect(!FileManager.default.fileExists(atPath: folder.file("session.avi")))
  }
}
