import Diagnostics
import Foundation
import JSONCore
import Logging
import Messages
import Scripting
import Settings

/// What the user chose on the command line for loading a flow.
public struct FlowOptions: Sendable {
  public var flowPath: String
  public var configFiles: [String] = []
  /// `key=value` texts from --set, in order.
  public var assignments: [String] = []
  /// `key=value` texts sent to a live run after it started (the preview's
  /// page or its API), after --set, each with where it came from, which
  /// its errors name instead of --set.
  public var sentAssignments: [(origin: String, text: String)] = []
  public var language: String?
  public var seed: Int64?
  /// The integrator's settings folder (--settings-dir): its files replace
  /// the bundled files of configs/ with the same name.
  public var settingsDirectory: String?
  /// The settings a flow may set besides its own: the engine's, and those
  /// of the estimators a run has.
  public var settingDeclarations: [SettingDeclaration]
  /// The settings and message files, read before for many runs of this
  /// flow (an evaluation's sessions); nil: each load reads them.
  public var files: FlowFiles?

  public init(flowPath: String, settingDeclarations: [SettingDeclaration] = FlowSettings.engine) {
    self.flowPath = flowPath
    self.settingDeclarations = settingDeclarations
  }
}

/// A flow's plain description, as `wb.runtime.prepare` returned it.
public struct FlowDescription: Sendable {
  public struct Step: Sendable {
    public var name: String
    public var timeout: Double?
    public var hint: String?
    public var hints: [String]
    public var needs: [String]
    public var failCode: Int64?
    /// Where the step was written ("file:line: ", as Lua says it), when known.
    public var location: SourceLocation?
    /// The number tests it makes on named measurements (with its sub-steps').
    public var thresholds: [Threshold]
  }

  /// A number test on a named measurement (`wb.threshold`'s `above`,
  /// `wb.range`'s `min`), as a report draws it.
  public struct Threshold: Sendable, Equatable {
    public var field: String
    /// "above", "below", "min" or "max".
    public var kind: String
    public var value: Double
    /// The watcher's name, for a watcher's test.
    public var watcher: String?

    init?(_ json: JSONValue) {
      guard let field = json["field"]?.stringValue, let kind = json["kind"]?.stringValue,
        let value = json["value"]?.doubleValue
      else { return nil }
      self.field = field
      self.kind = kind
      self.value = value
      watcher = json["watcher"]?.stringValue
    }

    /// The tests as events give them: one object per measurement (and
    /// watcher), with each of its limits: {"field": "face.yaw", "min": -10, "max": 10}.
    public static func eventValue(_ tests: [Threshold]) -> JSONValue {
      var objects: [JSONObject] = []
      var owners: [String] = []
      for test in tests {
        let owner = "\(test.field)\u{0}\(test.watcher ?? "")"
        // The same measurement again, with a limit of a kind not yet given: the same object.
        if let index = owners.lastIndex(of: owner), objects[index][test.kind] == nil {
          objects[index][test.kind] = .number(test.value)
          continue
        }
        var fields = JSONObject([("field", .string(test.field)), (test.kind, .number(test.value))])
        if let watcher = test.watcher { fields["watcher"] = .string(watcher) }
        objects.append(fields)
        owners.append(owner)
      }
      return .array(objects.map { .object($0) })
    }
  }

  /// A measurement the flow names: in a step's `field` or `needs`, or to `wb.field`.
  public struct FieldRead: Sendable, Equatable {
    public var field: String
    /// The step compares it with numbers (`field =` of wb.threshold, wb.range, wb.alert, wb.guard).
    public var isNumberTest: Bool
    public var location: SourceLocation?
  }

  public var name: String
  public var summary: String?
  public var steps: [Step]
  public var reads: [FieldRead]
  public var codes: [String: Int64]
  /// The message key of a result reason, where the flow names its own
  /// (`results = { passed = "enroll.passed" }`); else `result.<reason>`.
  public var results: [String: String]
  public var messages: [String]
  public var hasOnFinish: Bool
  /// The flow gives each session a score (wb.flow's `score`), higher
  /// meaning more likely bona fide, for `workbench eval`.
  public var hasScore: Bool
  /// What the flow's watchers (wb.alert, wb.guard) read.
  public var watchNeeds: [String]
  /// Whether every watcher says what it reads (a `when` function without
  /// `needs` may read anything).
  public var watchersSayWhatTheyRead: Bool
  /// Whether a wb.guard watches the flow: it can end the flow at any frame
  /// (HKID's overtime), so the flow need not have a time limit.
  public var hasGuard: Bool
  /// The number tests of the watchers, for every step.
  public var watchThresholds: [Threshold]

  init(_ json: JSONValue) {
    name = json["name"]?.stringValue ?? "flow"
    summary = json["description"]?.stringValue
    steps = (json["steps"]?.arrayValue ?? []).map { step in
      Step(
        name: step["name"]?.stringValue ?? "step",
        timeout: step["timeout"]?.doubleValue,
        hint: step["hint"]?.stringValue,
        hints: step["hints"]?.arrayValue?.compactMap(\.stringValue) ?? [],
        needs: step["needs"]?.arrayValue?.compactMap(\.stringValue) ?? [],
        failCode: step["fail_code"]?.integerValue,
        location: step["where"]?.stringValue.flatMap(FlowDescription.location),
        thresholds: (step["thresholds"]?.arrayValue ?? []).compactMap(Threshold.init))
    }
    reads = (json["reads"]?.arrayValue ?? []).compactMap { read in
      guard let field = read["field"]?.stringValue else { return nil }
      return FieldRead(
        field: field, isNumberTest: read["test"]?.stringValue == "number",
        location: read["where"]?.stringValue.flatMap(FlowDescription.location))
    }
    var codes: [String: Int64] = [:]
    for (reason, code) in json["codes"]?.objectValue ?? JSONObject() {
      if let code = code.integerValue { codes[reason] = code }
    }
    self.codes = codes
    var results: [String: String] = [:]
    for (reason, key) in json["results"]?.objectValue ?? JSONObject() {
      if let key = key.stringValue { results[reason] = key }
    }
    self.results = results
    // The result keys are messages too, for `workbench check`.
    messages = (json["messages"]?.arrayValue?.compactMap(\.stringValue) ?? []) + results.values.sorted()
    hasOnFinish = json["has_on_finish"]?.boolValue ?? false
    hasScore = json["has_score"]?.boolValue ?? false
    watchNeeds = json["watch_needs"]?.arrayValue?.compactMap(\.stringValue) ?? []
    watchersSayWhatTheyRead = !(json["watch_reads_unknown"]?.boolValue ?? false)
    hasGuard = json["has_guard"]?.boolValue ?? false
    watchThresholds = (json["watch_thresholds"]?.arrayValue ?? []).compactMap(Threshold.init)
  }

  /// "file:line: " as Lua's error positions give it.
  public static func location(_ position: String) -> SourceLocation? {
    // By hand, not with a Regex: a Regex literal is parsed again at every
    // use, and this runs for every step of every session an evaluation loads.
    var text = Substring(position)
    if text.hasSuffix(" ") { text = text.dropLast() }
    guard text.hasSuffix(":") else { return nil }
    text = text.dropLast()
    let digits = text.reversed().prefix { $0.isASCII && $0.isNumber }
    let file = text.dropLast(digits.count)
    guard !digits.isEmpty, file.count > 1, file.hasSuffix(":"), let line = Int(String(digits.reversed())) else {
      return nil
    }
    return SourceLocation(file: String(file.dropLast()), line: line)
  }

  /// Every message key the flow declares it may show.
  public var messageKeys: [String] {
    var keys = messages
    for step in steps { keys += step.hints }
    return keys
  }
}

/// What loading a flow reads besides the flow and the modules it requires:
/// the settings files below the command line's, and the message catalogs.
/// Read once for an evaluation's sessions, they are also the same for all
/// of them.
public struct FlowFiles: Sendable {
  let settings: SettingsBuilder
  let catalogs: MessageCatalogs

  /// Reads them as a load of `options` would; nil, with the problems, when
  /// one cannot be read.
  public static func read(_ options: FlowOptions, home: WorkbenchHome, problems: inout [Diagnostic]) -> FlowFiles? {
    let settingsFolder: SettingsFolder
    let settings: SettingsBuilder
    var found: [Diagnostic] = []
    do {
      settingsFolder = try SettingsFolder.make(home: home, settingsDirectory: options.settingsDirectory)
      settings = try SettingsLayering.fileLayers(options, folder: settingsFolder, problems: &found)
    } catch {
      problems += found + error.diagnostics
      return nil
    }
    let flowDirectory = URL(fileURLWithPath: options.flowPath).deletingLastPathComponent().path
    var catalogs = MessageCatalogs()
    do {
      for (path, language) in try settingsFolder.messageCatalogFiles() {
        try catalogs.add(file: path, language: language)
      }
      try catalogs.add(directory: WorkbenchHome.display(flowDirectory + "/messages"))
    } catch {
      problems += found + error.diagnostics
      return nil
    }
    problems += found
    return FlowFiles(settings: settings, catalogs: catalogs)
  }

  /// Reads them once for many loads of `options`; nil when a load would
  /// find a problem in them (each load then reports it).
  public static func readOnce(_ options: FlowOptions) -> FlowFiles? {
    guard let home = try? WorkbenchHome.locate() else { return nil }
    var problems: [Diagnostic] = []
    let files = read(options, home: home, problems: &problems)
    return problems.isEmpty ? files : nil
  }
}

/// A flow loaded into its own Lua state, with its settings resolved.
public final class LoadedFlow {
  public let options: FlowOptions
  public let home: WorkbenchHome
  public let displayPath: String
  public let description: FlowDescription
  public let vm: LuaVM
  public let catalogs: MessageCatalogs
  let host: FlowHost

  public var settings: ResolvedSettings { host.settings }

  /// The run's captures in order: name → { t, frame, images[, methods] }.
  public var captures: JSONObject { host.captures }

  /// Describes faces and asks the gallery for the flow (ctx.describe_face, ctx.gallery).
  public var identity: (any FaceIdentity)? {
    get { host.identity }
    set { host.identity = newValue }
  }

  /// Keeps the images of the frame being processed under a capture name
  /// (ctx.capture); nil when the run keeps no images.
  public var capturer: ((String) -> CaptureFiles?)? {
    get { host.capturer }
    set { host.capturer = newValue }
  }

  /// Sends the flow a command (`best_shot`: start the best-shot search
  /// now); a step takes it with `ctx.command(name)`. A command sent twice
  /// before it is taken counts once.
  public func send(command name: String) {
    if !host.pendingCommands.contains(name) { host.pendingCommands.append(name) }
  }

  /// The files the flow's `require` calls read, as found on disk.
  public var requiredFiles: [String] { vm.requiredFiles }

  /// The text of a result or intermediate reason in the run's language.
  public func resultMessage(_ reason: String) -> String { host.resultMessage(reason) }

  /// The measurements the flow's steps read, or nil when a step does not
  /// say (then every estimator runs).
  public var needs: [String]? {
    var paths: [String] = []
    for step in description.steps {
      if step.needs.isEmpty { return nil }
      paths += step.needs
    }
    return paths
  }

  /// What the flow reads besides its steps' needs: the fields its tests and
  /// getters (`wb.field`) name, and its watchers' needs; nil when a watcher
  /// does not say what it reads.
  public var readsBesideNeeds: [String]? {
    guard description.watchersSayWhatTheyRead else { return nil }
    return description.reads.map(\.field) + description.watchNeeds
  }

  /// Every measurement some step says it reads, also when other steps do
  /// not say (then ``needs`` is nil).
  public var declaredNeeds: [String] { description.steps.flatMap(\.needs) + description.watchNeeds }

  /// The same load with a fresh host for another session (``ReusableFlow``).
  func withFreshHost() -> LoadedFlow {
    let host = FlowHost(afterLoadOf: host)
    vm.rebind(host: host)
    return LoadedFlow(
      options: options, home: home, displayPath: displayPath, description: description, vm: vm, catalogs: catalogs,
      host: host)
  }

  init(
    options: FlowOptions, home: WorkbenchHome, displayPath: String, description: FlowDescription,
    vm: LuaVM, catalogs: MessageCatalogs, host: FlowHost
  ) {
    self.options = options
    self.home = home
    self.displayPath = displayPath
    self.description = description
    self.vm = vm
    self.catalogs = catalogs
    self.host = host
  }
}

/// Loads flows: settings layers, message catalogs, the sandboxed Lua state.
public enum FlowLoader {
  /// Loads the flow or throws every problem found (exit 2).
  public static func load(_ options: FlowOptions, logger: Logger) throws(WorkbenchError) -> LoadedFlow {
    var problems: [Diagnostic] = []
    var traceback: String?
    let flow = try load(options, logger: logger, problems: &problems, traceback: &traceback)
    if let flow, problems.isEmpty { return flow }
    throw WorkbenchError(.usage, problems, detail: traceback)
  }

  /// Loads as far as possible, collecting problems instead of stopping at
  /// the first (for `workbench check`). Throws only for an interruption.
  public static func load(
    _ options: FlowOptions, logger: Logger, problems: inout [Diagnostic], traceback: inout String?
  ) throws(WorkbenchError) -> LoadedFlow? {
    try load(options, logger: logger, problems: &problems, traceback: &traceback, restorable: false)
  }

  /// With `restorable`, the flow's Lua state can be copied and put back
  /// (``ReusableFlow``).
  static func load(
    _ options: FlowOptions, logger: Logger, problems: inout [Diagnostic], traceback: inout String?,
    restorable: Bool
  ) throws(WorkbenchError) -> LoadedFlow? {
    let home: WorkbenchHome
    do {
      home = try WorkbenchHome.locate()
    } catch {
      problems += error.diagnostics
      return nil
    }
    let displayPath = WorkbenchHome.display(options.flowPath)
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: options.flowPath, isDirectory: &isDirectory),
      !isDirectory.boolValue
    else {
      problems.append(
        Diagnostic(
          isDirectory.boolValue ? "is a folder, not a flow script" : "no such flow file",
          at: SourceLocation(file: displayPath), help: "give the path of a .lua flow, e.g. examples/liveness.lua"))
      return nil
    }

    let files: FlowFiles
    if let read = options.files {
      files = read
    } else {
      guard let read = FlowFiles.read(options, home: home, problems: &problems) else { return nil }
      files = read
    }
    var builder = files.settings
    SettingsLayering.commandLineLayers(options, into: &builder, problems: &problems)
    let catalogs = files.catalogs
    let flowDirectory = URL(fileURLWithPath: options.flowPath).deletingLastPathComponent().path

    let host = FlowHost(settingsBuilder: builder, catalogs: catalogs, flowDisplayPath: displayPath, logger: logger)
    let vm: LuaVM
    do {
      vm = try LuaVM(limits: limits(host.settings), host: host, restorable: restorable)
    } catch {
      problems.append(error.diagnostic)
      return nil
    }
    let flowDirectoryDisplay = WorkbenchHome.display(flowDirectory)
    vm.addRequireRoot(directory: flowDirectory, display: flowDirectoryDisplay)
    vm.addRequireRoot(directory: home.configs, display: WorkbenchHome.display(home.configs))
    let pluginsDisplay = WorkbenchHome.display(home.plugins)
    vm.addRequireRoot(directory: home.plugins, display: pluginsDisplay)
    vm.setLibraryPrefix(pluginsDisplay + "/wb/")
    vm.seedRandom(host.settings.integer("flow.seed") ?? 0)

    let description: FlowDescription
    do {
      try vm.runFile(path: options.flowPath, chunkName: displayPath)
      description = FlowDescription(try vm.openDriver(module: "wb.runtime", function: "prepare"))
      host.resultKeys = description.results
    } catch {
      if error.kind == .interrupted { throw WorkbenchError(.interrupted, "interrupted while loading the flow") }
      let source = (try? String(contentsOfFile: options.flowPath, encoding: .utf8)) ?? ""
      problems += diagnostics(for: error, flowPath: displayPath, source: source)
      traceback = error.tracebackText
      problems += host.settingsBuilder.resolve().problems
      return nil
    }

    let (resolved, settingProblems) = host.settingsBuilder.resolve()
    problems += settingProblems
    host.settingsChanged(resolved)
    vm.updateLimits(limits(resolved))
    if let pick = resolved.integer("flow.pick"), pick > description.steps.count {
      let source = resolved.source(of: "flow.pick")
      problems.append(
        Diagnostic(
          "setting 'flow.pick' = \(pick): the flow has only \(description.steps.count) step\(description.steps.count == 1 ? "" : "s") to draw from (from \(source?.description ?? "default"))",
          at: SourceLocation(file: source?.origin ?? displayPath, key: "flow.pick"),
          help: "pick at most \(description.steps.count), or 0 for all of them"))
    }
    for key in ["messages.language", "messages.fallback"] {
      if let language = resolved.string(key), !catalogs.languages.contains(language) {
        let source = resolved.source(of: key)
        problems.append(
          Diagnostic(
            "setting '\(key)' = \(language): no message catalog for that language (from \(source?.description ?? "default"))",
            at: SourceLocation(file: source?.origin ?? displayPath, key: key),
            help:
              "choose one of: \(catalogs.languages.joined(separator: ", ")), or add \(WorkbenchHome.display(flowDirectory + "/messages/\(language).json")) beside the flow"
          ))
      }
    }
    return LoadedFlow(
      options: options, home: home, displayPath: displayPath, description: description, vm: vm,
      catalogs: catalogs, host: host)
  }

  static func limits(_ settings: ResolvedSettings) -> ScriptLimits {
    let standard = ScriptLimits.standard
    return ScriptLimits(
      memoryLimit: settings.integer("lua.memory_limit").map { Int($0) << 20 } ?? standard.memoryLimit,
      instructionLimit: settings.integer("lua.instruction_limit") ?? standard.instructionLimit,
      patternBudget: settings.number("lua.pattern_budget") ?? standard.patternBudget)
  }

  /// One diagnostic per problem of a script error: a message may hold
  /// several "file:line: message" lines (all of wb.flow's problems), each
  /// maybe followed by indented detail lines.
  public static func diagnostics(for error: ScriptError, flowPath: String = "", source: String = "") -> [Diagnostic] {
    var messages: [String] = []
    for line in error.message.split(separator: "\n", omittingEmptySubsequences: true) {
      if (line.hasPrefix("\t") || line.hasPrefix(" ")), !messages.isEmpty {
        messages[messages.count - 1] += "\n  " + line.trimmingCharacters(in: .whitespaces)
      } else {
        messages.append(String(line))
      }
    }
    return messages.map { message in
      var diagnostic = error.diagnostic
      diagnostic.message = locate(message, flowPath: flowPath, source: source)
      return diagnostic
    }
  }

  /// `return wb.flow { ... }` is a tail call, so Lua no longer knows the line
  /// of a mistake in the flow table ("flow.lua: wb.flow: ..."): find it in
  /// the source, at the field it names or else at wb.flow.
  static func locate(_ message: String, flowPath: String, source: String) -> String {
    let prefix = flowPath + ": "
    guard !flowPath.isEmpty, message.hasPrefix(prefix) else {
      // A message with no position at all is still about the flow file.
      if !flowPath.isEmpty, message.firstMatch(of: #/^[^\s:]+:\d+: /#) == nil, !message.hasPrefix(flowPath) {
        return prefix + message
      }
      return message
    }
    let problem = message.dropFirst(prefix.count)
    let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
    // The flow table starts at wb.flow (or, for a plain table, at `return {`).
    let tableStart =
      lines.lastIndex { $0.contains("wb.flow") }
      ?? lines.lastIndex { $0.firstMatch(of: /^\s*return\s*\{/) != nil } ?? 0
    var line: Int?
    if let field = problem.firstMatch(of: /field '([A-Za-z_][A-Za-z0-9_]*)'/)?.output.1 {
      let assignment = try! Regex("(^|[^A-Za-z0-9_.])" + String(field) + "\\s*=[^=]")
      line = lines[tableStart...].firstIndex { $0.firstMatch(of: assignment) != nil }
    }
    guard let line = line ?? (tableStart > 0 || lines.first?.contains("wb.flow") == true ? tableStart : nil) else {
      return message
    }
    return "\(flowPath):\(line + 1): \(problem)"
  }
}

extension LoadedFlow {
  /// A script error about the flow table found while the flow runs (what
  /// its `score` function returned), at the line of the field it names.
  func locatingFlowTableProblem(_ error: ScriptError) -> ScriptError {
    guard error.message.hasPrefix(options.flowPath + ": wb.flow: "),
      let source = try? String(contentsOfFile: options.flowPath, encoding: .utf8)
    else { return error }
    var located = error
    located.message = FlowLoader.locate(error.message, flowPath: options.flowPath, source: source)
    return located
  }
}
