import Capture
import Diagnostics
import Flows
import Foundation
import JSONCore
import Logging
import Measurements
import Reporting
import RunComposition
import Scripting
import Session
import Settings

/// How one scenario went.
public struct ScenarioOutcome: Sendable {
  public var name: String
  public var file: String
  public var reproduce: String
  /// Every unmet expectation, each with what happened around it; empty when it passed.
  public var failures: [String]
  /// Why the scenario could not run at all (a flow that does not load, an input that is missing).
  public var error: String?
  public var exitStatus: Int32
  /// The result event in one line.
  public var result: String
  public var eventCount: Int
  /// Wall time of the run, for the JUnit report (never asserted).
  public var seconds: Double

  public var passed: Bool { failures.isEmpty && error == nil }

  public init(
    name: String, file: String, reproduce: String, failures: [String], error: String?, exitStatus: Int32,
    result: String, eventCount: Int, seconds: Double
  ) {
    self.name = name
    self.file = file
    self.reproduce = reproduce
    self.failures = failures
    self.error = error
    self.exitStatus = exitStatus
    self.result = result
    self.eventCount = eventCount
    self.seconds = seconds
  }
}

/// Finds, loads and runs scenarios.
public enum ScenarioRunner {
  /// The scenario files of `paths`: files as given, folders searched for
  /// `*.lua` (sorted, sub-folders included; files whose name starts with `_`
  /// are helpers a scenario may `require`, not scenarios). Flows found in a
  /// folder (a flow's own folder holds its flow beside its `qa/`) are left
  /// out: see ``search(_:)``.
  public static func files(in paths: [String]) throws(WorkbenchError) -> [String] {
    try search(paths).scenarios
  }

  /// The scenario files of `paths`, and the flows found in its folders,
  /// which are not scenarios. A flow given by name is an error that says so.
  public static func search(_ paths: [String]) throws(WorkbenchError) -> (scenarios: [String], flows: [String]) {
    var files: [String] = []
    var flows: [String] = []
    var problems: [Diagnostic] = []
    for path in paths {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        problems.append(
          Diagnostic("no such scenario file or folder", at: SourceLocation(file: path), help: "check the path"))
        continue
      }
      if !isDirectory.boolValue {
        if isFlow(path) {
          problems.append(
            Diagnostic(
              "is a flow, not a scenario file (it requires 'wb'; a scenario returns { flow = ..., input = ... })",
              at: SourceLocation(file: path), help: flowHelp(path)))
        } else {
          files.append(path)
        }
        continue
      }
      let found = (FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? [])
        .filter { $0.hasSuffix(".lua") && !($0 as NSString).lastPathComponent.hasPrefix("_") }
        .sorted()
        .map { (path.hasSuffix("/") ? path : path + "/") + $0 }
      let foundFlows = found.filter(isFlow)
      let scenarios = found.filter { !foundFlows.contains($0) }
      if scenarios.isEmpty {
        problems.append(
          Diagnostic(
            "no scenario files (*.lua) in this folder\(foundFlows.isEmpty ? "" : ", only flows")",
            at: SourceLocation(file: path),
            help: foundFlows.first.map(flowHelp)))
      }
      files += scenarios
      flows += foundFlows
    }
    if !problems.isEmpty { throw WorkbenchError(.usage, problems) }
    return (files, flows)
  }

  /// A flow requires the step library; a scenario cannot (its sandbox has
  /// only its own folder to require from), so this tells them apart.
  static func isFlow(_ path: String) -> Bool {
    guard let data = FileManager.default.contents(atPath: path) else { return false }
    let text = String(decoding: data, as: UTF8.self)
    return text.contains(/require\s*\(?\s*["']wb[."']/)
  }

  private static func flowHelp(_ flow: String) -> String {
    let folder = (flow as NSString).deletingLastPathComponent
    let qa = (folder.isEmpty ? "" : folder + "/") + "qa"
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: qa, isDirectory: &isFolder), isFolder.boolValue {
      return "its scenarios are in \(qa): workbench test \(qa)"
    }
    return "run a flow with 'workbench run \(flow) --input ...'; give test the scenario files that name it"
  }

  /// The scenarios of one file: Lua run in the flow sandbox, returning a
  /// table or a list of tables.
  public static func load(file: String) throws(WorkbenchError) -> [Scenario] {
    let host = ScenarioScriptHost()
    let vm: LuaVM
    do {
      vm = try LuaVM(limits: ScriptLimits(), host: host)
    } catch {
      throw WorkbenchError(.usage, error.message, at: SourceLocation(file: file))
    }
    let folder = (file as NSString).deletingLastPathComponent
    vm.addRequireRoot(directory: folder.isEmpty ? "." : folder, display: folder.isEmpty ? "." : folder)
    let value: JSONValue
    do {
      try vm.runFile(path: file, chunkName: file)
      value = try vm.returnedValue()
    } catch {
      throw WorkbenchError(
        .usage, error.message, at: SourceLocation(file: error.file ?? file, line: error.line),
        help: "a scenario file is Lua that returns { flow = ..., input = ..., expect = ... }")
    }
    if value.jsonText.contains("\"$function\"") {
      throw WorkbenchError(
        .usage, "a scenario holds data only: functions cannot be part of it", at: SourceLocation(file: file),
        help: "compute values at the top of the file and put the results in the table")
    }
    return try ScenarioLoader.scenarios(from: value, file: file)
  }

  /// What a run needs from the command line: the license check, the
  /// renderer of synthetic scenes, where reports go.
  public struct Environment {
    public var licenseCheck: (@Sendable ([String]) throws(WorkbenchError) -> Void)?
    /// Renders a synthetic scene's schedule into a recording (`workbench synth card`).
    public var synthesize:
      ((_ schedule: String, _ options: Scenario.SynthOptions, _ recording: String) throws(WorkbenchError) -> Void)? =
        SyntheticScenes.render
    public var logger: Logger
    /// Writes each scenario's session report into a folder of its own here.
    public var reportFolder: String?

    public init(logger: Logger) { self.logger = logger }
  }

  /// Runs one scenario in this process.
  public static func run(_ scenario: Scenario, environment: Environment) -> ScenarioOutcome {
    let started = Date()
    func outcome(failures: [String] = [], error: String? = nil, status: Int32, result: String, count: Int)
      -> ScenarioOutcome
    {
      ScenarioOutcome(
        name: scenario.name, file: scenario.file, reproduce: scenario.reproduce, failures: failures, error: error,
        exitStatus: status, result: result, eventCount: count, seconds: Date().timeIntervalSince(started))
    }
    // A missing input is the scenario's mistake (exit 2, not run), not a failed run.
    switch scenario.input {
    case .file(let path) where !path.isEmpty && path != "-" && !FileManager.default.fileExists(atPath: path):
      return outcome(
        error: "the input \(WorkbenchHome.display(path)) does not exist (paths are relative to the scenario file)",
        status: 2,
        result: "not run", count: 0)
    case .synth(let schedule, _) where !FileManager.default.fileExists(atPath: schedule):
      return outcome(
        error:
          "the schedule \(WorkbenchHome.display(schedule)) does not exist (paths are relative to the scenario file)",
        status: 2,
        result: "not run", count: 0)
    default: break
    }
    let inputPath: String
    switch scenario.input {
    case .file(let path): inputPath = path
    case .synth(let schedule, let synthOptions) where SyntheticScenes.isFaceSchedule(schedule):
      do {
        inputPath = try SyntheticScenes.cachedRecording(schedule: schedule, options: synthOptions, suffix: ".jsonl") {
          (path) throws(WorkbenchError) in
          try SyntheticScenes.measureFace(schedule: schedule, options: synthOptions, to: path)
        }
      } catch {
        return outcome(error: error.summary, status: 2, result: "not run", count: 0)
      }
    case .synth(let schedule, let synthOptions):
      guard let synthesize = environment.synthesize else {
        return outcome(error: "synthetic scenes cannot be rendered here", status: 2, result: "not run", count: 0)
      }
      do {
        inputPath = try SyntheticScenes.cachedRecording(schedule: schedule, options: synthOptions) {
          (path) throws(WorkbenchError) in try synthesize(schedule, synthOptions, path)
        }
      } catch {
        return outcome(
          error: error.summary,
          status: 2, result: "not run", count: 0)
      }
    }

    var flowOptions = RunSettings.flowOptions(scenario.flow)
    flowOptions.assignments = scenario.settings
    var galleryScratch: String?
    defer { if let galleryScratch { try? FileManager.default.removeItem(atPath: galleryScratch) } }
    if let export = scenario.gallery {
      do {
        let (folder, location) = try ScenarioGallery.make(from: export)
        galleryScratch = folder
        flowOptions.assignments.insert("gallery.location=\(location)", at: 0)
      } catch {
        return outcome(error: error.summary, status: 2, result: "not run", count: 0)
      }
    }
    flowOptions.language = scenario.language
    flowOptions.seed = scenario.seed
    var options = RunOptions(flow: flowOptions, input: .file(inputPath))
    options.licenseCheck = environment.licenseCheck
    let collected = InMemoryEventSink()
    let measurementFaults = MeasurementFaults(scenario.faults)
    let frameFaults = scenario.faults.filter(\.touchesFrames)
    let seed = UInt64(bitPattern: scenario.seed ?? 1)
    if !frameFaults.isEmpty, InputSpec.isTrace(inputPath) {
      let unsupported = FaultyTraceInput.unsupported(frameFaults)
      if !unsupported.isEmpty {
        return outcome(
          error:
            "a trace has no pixels and no camera: \(unsupported.joined(separator: ", ")) needs a recording or a synthetic scene",
          status: 2, result: "not run", count: 0)
      }
    }
    var reportScratch: String?
    if environment.reportFolder != nil {
      let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "workbench-scenario-\(UUID().uuidString)"
      ).path
      if (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)) != nil {
        reportScratch = folder
        options.traceOutPath = folder + "/trace.jsonl"
      }
    }
    defer { if let reportScratch { try? FileManager.default.removeItem(atPath: reportScratch) } }
    let recordScratch = scenario.record.flatMap { _ in
      try? TemporaryScratch.make("workbench-scenario-recording")
    }
    defer { if let recordScratch { try? FileManager.default.removeItem(atPath: recordScratch) } }
    if let policy = scenario.record {
      guard let recordScratch else {
        return outcome(error: "no scratch folder for the recording", status: 2, result: "not run", count: 0)
      }
      options.recordPath = recordScratch + "/recording.avi"
      options.recordPolicy = policy
    }
    let session = RunSession(options, logger: environment.logger)
    session.addEventSink(collected)
    if !measurementFaults.isEmpty {
      // Registered first, so innermost: the trace faults drop and repeat the changed frames.
      session.wrapInput { input, schema in AdjustedInput(input, faults: measurementFaults, schema: schema) }
    }
    if !frameFaults.isEmpty {
      if InputSpec.isTrace(inputPath) {
        let timeline = FaultTimeline<MeasurementFrame>(frameFaults, seed: seed)
        session.wrapInput { input, _ in FaultyTraceInput(input, timeline: timeline) }
      } else {
        session.wrapFrameSource { source in FaultySource(source, faults: frameFaults, seed: seed) }
      }
    }
    var analytics: CollectedAnalytics?
    if !scenario.expectations.analytics.isEmpty {
      do {
        analytics = try RunAnalytics.collect(into: session)
      } catch {
        return outcome(error: error.summary, status: 2, result: "not run", count: 0)
      }
    }
    let run: RunOutcome
    if let at = Fault.closeTime(scenario.faults) {
      // Registered last, so outermost: it sees the frames the flow gets.
      let signal = CloseSignal(at: at)
      session.wrapInput { input, _ in ClosingInput(input, signal: signal) }
      if session.open() {
        while session.step() && !signal.due {}
      }
      run = session.close()
    } else {
      run = session.run()
    }
    let events = collected.events.map(\.jsonValue)
    var reportProblem: String?
    if let reportFolder = environment.reportFolder, let reportScratch {
      let eventsFile = reportScratch + "/events.jsonl"
      do {
        try Data(events.map { $0.jsonText + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: eventsFile))
        try RunReports.write(
          folder: reportFolder + "/" + scenario.slug, events: eventsFile, trace: options.traceOutPath,
          settings: run.settings)
      } catch let error as WorkbenchError {
        reportProblem = "the report could not be written: \(error.description)"
      } catch {
        reportProblem = "the report could not be written: \(error.localizedDescription)"
      }
    }
    let result = events.last.map(Expectations.describe) ?? "no result"
    var failures = scenario.expectations.check(
      events: events, exitStatus: run.status.rawValue, analytics: analytics?.records ?? [])
    if !run.problems.isEmpty && run.status.rawValue >= 2 && scenario.expectations.exit != run.status.rawValue {
      failures.insert(
        "the run reported: "
          + run.problems.map(\.locatedMessage).joined(separator: "; "),
        at: 0)
    }
    if let reportProblem { failures.append(reportProblem) }
    return outcome(failures: failures, status: run.status.rawValue, result: result, count: events.count)
  }

}

/// Scenario files may log; everything else of the flow API is not theirs.
final class ScenarioScriptHost: ScriptHost {
  // The flow's names, so that a scenario that calls one is told why it cannot.
  var functionNames: [String] { FlowHostFunctions.names }

  func call(_ function: String, arguments: [JSONValue]) throws(HostCallFailure) -> String? {
    switch function {
    case "log": return nil
    default: throw HostCallFailure("scenario files describe a run; the flow API is not available in them")
    }
  }
}

/// A new folder of its own in the temporary folder.
enum TemporaryScratch {
  static func make(_ prefix: String) throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return folder
  }
}
