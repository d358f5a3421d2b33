// Measures the host's own cost per frame: refill the 20-field measurement
// table, run the flow's per-frame code, emit events. Frames come from
// memory, so only the host and the Lua call are timed.
import Diagnostics
import Flows
import Foundation
import Logging
import Measurements
import Reporting
import RunComposition
import Session

#if canImport(Glibc)
  import Glibc
#endif

struct Scenario {
  var name: String
  var flow: String
  var sink: () throws -> any EventSink
}

let frameCount = Int(ProcessInfo.processInfo.environment["BENCH_FRAMES"] ?? "") ?? 200_000
let repetitions = Int(ProcessInfo.processInfo.environment["BENCH_RUNS"] ?? "") ?? 5

let twentyFields: [(String, MeasurementValue)] = [
  ("face.count", .integer(1)), ("face.yaw", .number(3.5)), ("face.pitch", .number(-2.25)),
  ("face.roll", .number(0.5)), ("face.ear_left", .number(0.31)), ("face.ear_right", .number(0.3)),
  ("face.blink_left", .number(0.05)), ("face.blink_right", .number(0.04)), ("face.box.x", .integer(212)),
  ("face.box.y", .integer(118)), ("face.box.w", .integer(216)), ("face.box.h", .integer(240)),
  ("card.found", .bool(true)), ("card.tilt_x", .number(1.5)), ("card.tilt_y", .number(-12.5)),
  ("card.width_ratio", .number(0.45)), ("card.speed", .number(20.0)), ("card.glare", .number(0.02)),
  ("card.blur", .number(0.1)), ("quality.light", .number(0.55)),
]

func frames(schema: MeasurementSchema, fields: [(String, MeasurementValue)]) -> [MeasurementFrame] {
  // 64 distinct frames, cycled: values change from frame to frame as they would live.
  (0..<64).map { variant in
    var frame = MeasurementFrame(t: 0, index: 0)
    for (path, value) in fields {
      guard case .success(let id) = schema.node(path: path) else { fatalError("bad path \(path)") }
      for table in schema.ancestors(of: id) { frame[table] = .table }
      if case .number(let number) = value {
        frame[id] = .number(number + Double(variant) * 0.01)
      } else {
        frame[id] = value
      }
    }
    return frame
  }
}

func nanoseconds() -> UInt64 {
  var spec = timespec()
  clock_gettime(CLOCK_MONOTONIC, &spec)
  return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

struct Measurement {
  var median: Double
  var p99: Double
  var events: Int
}

func measure(_ scenario: Scenario, fields: [(String, MeasurementValue)], folder: String) throws -> Measurement {
  let path = folder + "/\(scenario.name).lua"
  try scenario.flow.write(toFile: path, atomically: true, encoding: .utf8)
  var options = RunSettings.flowOptions(path)
  options.assignments = ["flow.time_limit=0", "flow.step_timeout=0"]
  let flow = try FlowLoader.load(options, logger: Logger(label: "bench"))
  let sink = try scenario.sink()
  let schema = MeasurementSchema()
  let runner = FlowRunner(flow: flow, sink: sink, schema: schema)
  let templates = frames(schema: schema, fields: fields)
  var samples = [UInt64](repeating: 0, count: frameCount)
  let frameInterval = 1.0 / 30.0
  for i in 0..<frameCount {
    var frame = templates[i & 63]
    frame.t = Double(i) * frameInterval
    frame.index = Int64(i)
    let start = nanoseconds()
    runner.process(frame)
    samples[i] = nanoseconds() - start
  }
  guard runner.result == nil else {
    throw WorkbenchError(.failed, "benchmark flow '\(scenario.name)' ended early: \(runner.result!.reason)")
  }
  runner.finishAtEndOfInput()
  try sink.finish()
  // The first frames warm caches and grow buffers; leave them out.
  let steady = samples.dropFirst(1000).sorted()
  let median = Double(steady[steady.count / 2]) / 1000
  let p99 = Double(steady[Int(Double(steady.count) * 0.99)]) / 1000
  let events = (sink as? CountingSink)?.count ?? 0
  return Measurement(median: median, p99: p99, events: events)
}

final class CountingSink: EventSink {
  var count = 0
  private let inner: any EventSink
  init(_ inner: any EventSink) { self.inner = inner }
  func emit(_ event: Event) {
    count += 1
    inner.emit(event)
  }
  func finish() throws(WorkbenchError) { try inner.finish() }
}

let header = "local wb = require 'wb'\n"
func flowScenarios() -> [(Scenario, [(String, MeasurementValue)])] {
  [
    (
      Scenario(
        name: "baseline",
        flow: header + "return wb.flow { name = 'baseline', steps = { function(m, ctx) end } }",
        sink: { CountingSink(InMemoryEventSink()) }), []
    ),
    (
      Scenario(
        name: "threshold-20-fields",
        flow: header
          + "return wb.flow { name = 'threshold', steps = { wb.threshold { field = 'face.yaw', above = 1000 } } }",
        sink: { CountingSink(InMemoryEventSink()) }), twentyFields
    ),
    (
      Scenario(
        name: "lua-step-20-fields",
        flow: header + """
          return wb.flow { name = 'reads', steps = { function(m, ctx)
            local f, c = m.face, m.card
            if f.yaw > 80 and f.ear_left < 0 and c.found and c.tilt_y > 90 and f.box.w > 5000 then return true end
          end } }
          """,
        sink: { CountingSink(InMemoryEventSink()) }), twentyFields
    ),
    (
      Scenario(
        name: "hint-event-every-frame",
        flow: header + """
          return wb.flow { name = 'hints', steps = { function(m, ctx)
            ctx.hint('flow.seconds_left', { seconds = m.frame })
          end } }
          """,
        sink: { CountingSink(try JSONLinesEventSink(path: "/dev/null")) }), twentyFields
    ),
  ]
}

/// Per-frame host cost of the flow engine.
func runFlowBenchmarks() throws {
  let folder = NSTemporaryDirectory() + "workbench-bench-\(getpid())"
  try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: folder) }

  print("workbench per-frame host cost: \(frameCount) frames per run, median of \(repetitions) runs, one core")
  print("scenario                     fields  median µs  p99 µs  vs baseline  events/run")
  var baseline = 0.0
  for (scenario, fields) in flowScenarios() {
    var medians: [Double] = []
    var p99s: [Double] = []
    var events = 0
    for _ in 0..<repetitions {
      let result = try measure(scenario, fields: fields, folder: folder)
      medians.append(result.median)
      p99s.append(result.p99)
      events = result.events
    }
    let median = medians.sorted()[medians.count / 2]
    let p99 = p99s.sorted()[p99s.count / 2]
    if scenario.name == "baseline" { baseline = median }
    let ratio = baseline > 0 ? String(format: "%.2fx", median / baseline) : "-"
    print(
      scenario.name.padding(toLength: 28, withPad: " ", startingAt: 0)
        + String(format: " %6d  %9.3f  %6.3f  %11@  %10d", fields.count, median, p99, ratio as NSString, events))
  }
}
