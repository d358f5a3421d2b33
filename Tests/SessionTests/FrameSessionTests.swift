import Capture
import CaptureTesting
import Diagnostics
import Estimators
import Flows
import FlowsTesting
import Foundation
import Imaging
import JSONCore
import Logging
import Measurements
import RunComposition
import SimulatedCamera
import TestSupport
import Testing

@testable import Session

/// Real JPEG frames (the fixtures), as a scripted camera delivers them.
func fixtureJPEGs() throws -> [[UInt8]] {
  try ["0001", "0002", "0003", "0040"].map {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: packageRootPath + "/Tests/Fixtures/frames/\($0).jpg")))
  }
}

func scriptedCamera(frames: Int, thenUnplug: Bool) throws -> ScriptedV4L2Device {
  let jpegs = try fixtureJPEGs()
  var events: [ScriptedEvent] = (0..<frames).map { index in
    .frame(ScriptedFrame(jpegs[index % jpegs.count], timestampMicroseconds: 5_000_000 + Int64(index) * 33_333))
  }
  if thenUnplug { events.append(.unplug) }
  return ScriptedV4L2Device(
    ScriptedCamera(formats: [.mjpeg([V4L2Size(width: 640, height: 360)])], events: events))
}

@Suite("Sessions on frames")
struct FrameSessionTests {
  let qualityFlow = """
    local wb = require "wb"
    return wb.flow { name = "quality", step_timeout = 0, steps = {
      wb.range { field = "quality.darkness", min = 2, hold_ms = 100 } } }
    """

  func run(_ flowSource: String, camera: ScriptedV4L2Device, record: String? = nil) throws -> (RunOutcome, [JSONValue])
  {
    let folder = try TemporaryFolder(prefix: "frame-session")
    let fixture = try FlowFixture(flowSource)
    var options = RunOptions(
      flow: fixture.options(declarations: RunSettings.declarations),
      input: .camera(device: "/dev/video0", width: nil, height: nil, fps: nil))
    options.eventsPath = folder.file("events.jsonl")
    options.recordPath = record
    let outcome = RunSession(options, logger: testLogger, openFrames: scriptedOpener(camera)).run()
    let text = try String(contentsOfFile: folder.file("events.jsonl"), encoding: .utf8)
    let events = try text.split(separator: "\n").map { try JSONParser.parse(String($0)) }
    return (outcome, events)
  }

  @Test("a camera unplugged mid-run ends it with camera_lost, exit 4, and a complete events file")
  func cameraLost() throws {
    let (outcome, events) = try run(qualityFlow, camera: try scriptedCamera(frames: 6, thenUnplug: true))
    #expect(outcome.status == .input)
    let result = try #require(events.last)
    #expect(result["type"] == "result")
    #expect(result["reason"] == "camera_lost")
    #expect(result["code"] == -4)
    #expect(outcome.problems.contains { $0.message.contains("unplugged") || $0.message.contains("disconnected") })
    // The six frames before the unplug were either given to the flow or,
    // while the flow was busy, dropped and counted (a live camera never queues).
    let seen = try #require(result["frames"]?.integerValue)
    let dropped = try #require(result["frames_dropped"]?.integerValue)
    #expect(seen + dropped == 6)
    #expect(seen >= 1)
    let session = try #require(events.first)
    #expect(session["type"] == "session")
    #expect(session["input"]?["kind"] == "camera")
  }

  @Test("--record keeps the frames seen before the camera went away, in a complete AVI")
  func recordingSurvivesUnplug() throws {
    let folder = try TemporaryFolder(prefix: "frame-session-record")
    let path = folder.file("session.avi")
    let (_, events) = try run(qualityFlow, camera: try scriptedCamera(frames: 5, thenUnplug: true), record: path)
    let recording = try RecordingSource.open(path: path)
    var count = 0
    while let frame = try recording.next() {
      if case .jpeg = frame.payload { count += 1 }
    }
    // Exactly the frames the flow saw.
    #expect(count == (events.last?["frames"]?.integerValue).map(Int.init))
    #expect(count >= 1)
    #expect(FileManager.default.fileExists(atPath: path + ".timestamps.jsonl"))
  }
}

/// An estimator that takes its time, behind a live source that makes frames
/// as fast as asked: the mailbox must drop, never queue.
final class SlowEstimator: Estimator {
  let descriptor = EstimatorDescriptor(name: "slow", summary: "sleeps", provides: ["slow.done"])
  private var node = -1

  func prepare(schema: MeasurementSchema) throws(EstimatorError) {
    node = try schema.valueNode("slow.done", estimator: "slow")
  }

  func estimate(_ frame: DecodedFrame, into measurements: inout MeasurementFrame) {
    usleep(20_000)
    measurements[node] = .bool(true)
  }
}

/// An estimator that records what the run told it it reads.
final class SelectiveProbe: Estimator, SelectiveEstimator {
  let descriptor = EstimatorDescriptor(name: "probe", summary: "probe", provides: ["probe"])
  var told: [[String]?] = []
  func select(reads: [String]?) { told.append(reads) }
  func prepare(schema: MeasurementSchema) throws(EstimatorError) {}
  func estimate(_ frame: DecodedFrame, into measurements: inout MeasurementFrame) {}
}

@Suite("What the estimators are told the run reads")
struct SelectionTests {
  @Test(
    "before prepare, the graph's reads and what the flow reads beside them; nil when a run measures everything or the flow's reads are not known"
  )
  func told() throws {
    let probe = SelectiveProbe()
    let graph = try EstimatorGraph(available: [probe], wanted: ["probe.a", "probe.b"])
    _ = try FramePipeline(graph: graph, schema: MeasurementSchema())
    _ = try FramePipeline(graph: graph, schema: MeasurementSchema(), measuresEverything: true)
    _ = try FramePipeline(graph: graph, schema: MeasurementSchema(), alsoReads: ["probe.c"])
    _ = try FramePipeline(graph: graph, schema: MeasurementSchema(), alsoReads: nil)
    #expect(probe.told == [["probe.a", "probe.b"], nil, ["probe.a", "probe.b", "probe.c"], nil])
  }
}

@Suite("Dropping frames")
struct DropTests {
  @Test("when the estimators fall behind a live source, frames are dropped and counted, not queued")
  func drops() throws {
    let jpeg = try fixtureJPEGs()[0]
    let schema = MeasurementSchema()
    let graph = try EstimatorGraph(available: [SlowEstimator()], wanted: ["slow.done"])
    let pipeline = try FramePipeline(graph: graph, schema: schema)
    let input = FrameInput(
      source: InMemoryFrameSource(jpeg: jpeg, count: 400, info: SourceInfo(kind: "camera", name: "fast")),
      pipeline: pipeline, live: true)
    var processed = 0
    var notedDrops = 0
    var lastIndex: Int64 = -1
    while let frame = try input.next(note: { note in
      if case .dropped(let count, _, _, _) = note { notedDrops += count }
    }) {
      #expect(frame.index > lastIndex)
      lastIndex = frame.index
      processed += 1
    }
    input.close()
    #expect(input.counters.dropped > 0)
    #expect(notedDrops == input.counters.dropped)
    // Every frame was either processed or counted as dropped; the last one arrived.
    #expect(processed + input.counters.dropped <= 400)
    #expect(processed < 400)
  }
}

@Suite("Scaled decoding")
struct ScaledDecodingTests {
  @Test("when every estimator works at a small size, JPEG frames are decoded scaled down")
  func scaled() throws {
    let jpeg = try fixtureJPEGs()[0]
    let schema = MeasurementSchema()
    let graph = try EstimatorGraph(available: BuiltinEstimators.all(), wanted: ["image.width"])
    #expect(graph.workingWidth == 1)
    let pipeline = try FramePipeline(graph: graph, schema: schema)
    guard case .measured(let measurements) = pipeline.measure(CapturedFrame(index: 0, t: 0, payload: .jpeg(jpeg)))
    else {
      Issue.record("the frame was not measured")
      return
    }
    // 640×360 decoded at 1/8, while the measurement keeps the captured size.
    #expect(pipeline.lastDecoded.width == 80)
    #expect(measurements[try #require(schema.lookup(path: "image.width"))] == .integer(640))
    #expect(measurements[try #require(schema.lookup(path: "image.height"))] == .integer(360))
  }

  @Test("an estimator that needs full resolution gets it")
  func full() throws {
    let jpeg = try fixtureJPEGs()[0]
    let graph = try EstimatorGraph(available: BuiltinEstimators.all(), wanted: ["image.width", "quality.blur"])
    #expect(graph.workingWidth == nil)
    let pipeline = try FramePipeline(graph: graph, schema: MeasurementSchema())
    _ = pipeline.measure(CapturedFrame(index: 0, t: 0, payload: .jpeg(jpeg)))
    #expect(pipeline.lastDecoded.width == 640)
  }
}
