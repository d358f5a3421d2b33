import Diagnostics
import Flows
import Foundation
import JSONCore
import Logging
import Measurements
import Reporting
import ReportingTesting
import Settings
import TestSupport

/// A flow written to a temporary folder, with optional catalogs of its own.
struct FlowFixture {
  let folder: String
  let path: String

  init(_ source: String, messages: [String: [String: String]] = [:]) throws {
    folder = try TemporaryFolder(prefix: "flows-tests").subfolder("flow")
    try FileManager.default.createDirectory(atPath: folder + "/messages", withIntermediateDirectories: true)
    path = folder + "/flow.lua"
    try source.write(toFile: path, atomically: true, encoding: .utf8)
    for (language, texts) in messages {
      let object = JSONValue.object(JSONObject(texts.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
      try object.jsonText.write(toFile: folder + "/messages/\(language).json", atomically: true, encoding: .utf8)
    }
  }

  func options(set assignments: [String] = [], language: String? = nil, seed: Int64? = nil) -> FlowOptions {
    var options = FlowOptions(flowPath: path, settingDeclarations: EstimatorSettingsDouble.declarations)
    options.assignments = assignments
    options.language = language
    options.seed = seed
    return options
  }
}

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
  let sink = CollectingEventSink()
  let schema = MeasurementSchema()
  let runner = FlowRunner(flow: flow, sink: sink, schema: schema)
  for frame in script.build(into: schema) {
    if !runner.process(frame) { break }
  }
  runner.finishAtEndOfInput()
  return RunRecord(events: sink.events, result: runner.result, runner: runner)
}

func yaw(_ value: Double) -> [String: MeasurementValue] { ["face.yaw": .number(value)] }

/// The settings a run declares besides the flow engine's, as a double: the
/// estimators' keys of the bundled configs/settings.json, typed by their
/// values. The flows under test read none of them, but the bundled file sets
/// them, and these tests link no estimator to declare them for real.
enum EstimatorSettingsDouble {
  static let declarations: [SettingDeclaration] = {
    let engine = FlowSettings.engine
    let known = Set(engine.map(\.key))
    guard let text = try? String(contentsOfFile: packageRootPath + "/configs/settings.json", encoding: .utf8),
      let bundled = try? JSONParser.parse(text)
    else { return engine }
    var declarations = engine
    func declare(_ value: JSONValue, at key: String) {
      switch value {
      case .object(let object):
        for (name, inner) in object.entries { declare(inner, at: key.isEmpty ? name : key + "." + name) }
      case _ where known.contains(key):
        return
      case .bool(let flag): declarations.append(.boolean(key, default: flag, doc: "test double"))
      case .integer(let integer): declarations.append(.number(key, default: Double(integer), doc: "test double"))
      case .number(let number): declarations.append(.number(key, default: number, doc: "test double"))
      case .string(let text): declarations.append(.string(key, default: text, doc: "test double"))
      default: return
      }
    }
    declare(bundled, at: "")
    return declarations
  }()
}
