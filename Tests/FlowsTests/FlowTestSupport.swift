import Diagnostics
import Flows
import FlowsTesting
import Logging
import Measurements
import Reporting

/// Frames at a fixed rate, built from dotted measurement paths.
struct FrameScript {
  var fps = 30.0
  var frames: [[String: MeasurementValue]] = []

  /// Appends `count` frames whose values come from `values(frameIndex)`.
  mutating func add(_ count: Int, _ values: (Int) -> [String: MeasurementValue]) {
    let start = frames.count
    for i in 0..<count { frames.append(values(start + i)) }
  }

  func build(into schema: MeasurementSchema) -> [MeasurementFrame] {
    frames.enumerated().map { index, values in
      var frame = MeasurementFrame(t: Double(index) / fps, index: Int64(index))
      for (path, value) in values.sorted(by: { $0.key < $1.key }) {
        guard case .success(let id) = schema.node(path: path) else { continue }
        frame[id] = value
        for table in schema.ancestors(of: id) { frame[table] = .table }
      }
      return frame
    }
  }
}

struct RunRecord {
  var events: [Event]
  var result: FlowResult?
  var runner: FlowRunner

  func events(_ type: String) -> [Event] { events.filter { $0.type == type } }

  /// "name:state" for every step event.
  var stepStates: [String] {
    events("step").map { "\($0["name"]?.stringValue ?? "?"):\($0["state"]?.stringValue ?? "?")" }
  }

  var statuses: [String] { events("status").compactMap { $0["status"]?.stringValue } }
}

let testLogger = Logger(label: "workbench-tests")

func run(_ fixture: FlowFixture, _ script: FrameScript, options: FlowOptions? = nil) throws -> RunRecord {
  let flow = try FlowLoader.load(options ?? fixture.options(), logger: testLogger)
  let sink = InMemoryEventSink()
  let schema = MeasurementSchema()
  let runner = FlowRunner(flow: flow, sink: sink, schema: schema)
  for frame in script.build(into: schema) {
    if !runner.process(frame) { break }
  }
  runner.finishAtEndOfInput()
  return RunRecord(events: sink.events, result: runner.result, runner: runner)
}

func yaw(_ value: Double) -> [String: MeasurementValue] { ["face.yaw": .number(value)] }
