import Diagnostics
import Scripting
import Settings

/// The flow engine's own settings. A run adds its estimators' (the RunComposition
/// module's `RunSettings`); flows declare their own on top (wb.settings).
public enum FlowSettings {
  /// The defaults of flow.time_limit, flow.step_timeout and flow.step_delay,
  /// in seconds, which the runner also falls back to.
  static let defaultTimeLimit = 60.0
  static let defaultStepTimeout = 5.0
  static let defaultStepDelay = 0.0

  public static let engine: [SettingDeclaration] = [
    SettingDeclaration(
      key: "flow.time_limit", type: .number, defaultValue: .number(defaultTimeLimit), minimum: 0, maximum: 3600,
      doc: "Total time the flow may take; 0 for no limit", unit: "s"),
    SettingDeclaration(
      key: "flow.step_timeout", type: .number, defaultValue: .number(defaultStepTimeout), minimum: 0, maximum: 3600,
      doc: "Time a step may take when it sets no timeout of its own; 0 for none", unit: "s"),
    SettingDeclaration(
      key: "flow.step_delay", type: .number, defaultValue: .number(defaultStepDelay), minimum: 0, maximum: 60,
      doc: "Pause between a step passing and the next one starting", unit: "s"),
    SettingDeclaration(
      key: "flow.order", type: .choice(["fixed", "random"]), defaultValue: .string("fixed"),
      doc: "Run the steps in the order written, or draw them at random"),
    SettingDeclaration(
      key: "flow.pick", type: .integer, defaultValue: .integer(0), minimum: 0, maximum: 5,
      doc:
        "With random order: how many steps to draw from the flow's pool (at most 5, LUNA ID's limit of interactions); 0 for all"
    ),
    SettingDeclaration(
      key: "flow.seed", type: .integer, defaultValue: .integer(0), minimum: 0, maximum: 4_294_967_295,
      doc: "Seed of the random step order and of math.random; 0: with random order, a new one each run (reported)"),
    SettingDeclaration(
      key: "messages.language", type: .string, defaultValue: .string("en"),
      doc: "Language of the hints (a catalog in messages/ beside the flow, or in configs/messages/)"),
    SettingDeclaration(
      key: "messages.fallback", type: .string, defaultValue: .string("en"),
      doc: "Language used for a key that the chosen language's catalog lacks"),
    SettingDeclaration(
      key: "lua.instruction_limit", type: .integer, defaultValue: .integer(ScriptLimits.standard.instructionLimit),
      minimum: 10_000, maximum: 10_000_000_000,
      doc: "Lua VM instructions one call into the flow may run before it is stopped"),
    SettingDeclaration(
      key: "lua.memory_limit", type: .integer, defaultValue: .integer(Int64(ScriptLimits.standard.memoryLimit >> 20)),
      minimum: 1, maximum: 4096, doc: "Memory the flow's Lua state may hold", unit: "MiB"),
    SettingDeclaration(
      key: "lua.pattern_budget", type: .number, defaultValue: .number(ScriptLimits.standard.patternBudget),
      minimum: 1e4, maximum: 1e12,
      doc: "Largest estimated cost of one string.find/match/gmatch/gsub; costlier patterns are refused"),
  ]
}

/// The settings layers of a flow, lowest first: declarations and defaults,
/// the settings folder's settings.json, then /etc/workbench's and the
/// user's (~/.config/workbench) keys on top of it, --config files, --set, --lang and
/// --seed. `run`, `check` and `settings` all layer them here; the flow's own
/// wb.settings come on top when it loads.
public enum SettingsLayering {
  /// The builder with every layer below the flow's; the problems of the
  /// layers that could not be read, or throws when nothing can be built.
  public static func builder(_ options: FlowOptions, folder: SettingsFolder, problems: inout [Diagnostic])
    throws(WorkbenchError) -> SettingsBuilder
  {
    var builder = try fileLayers(options, folder: folder, problems: &problems)
    commandLineLayers(options, into: &builder, problems: &problems)
    return builder
  }

  /// The layers read from files: declarations and defaults, settings.json
  /// and the --config files.
  static func fileLayers(_ options: FlowOptions, folder: SettingsFolder, problems: inout [Diagnostic])
    throws(WorkbenchError) -> SettingsBuilder
  {
    var builder = try SettingsBuilder(declarations: options.settingDeclarations)
    if let settingsFile = try folder.checkedJSONFile("settings.json") {
      try builder.load(configFile: WorkbenchHome.display(settingsFile), layer: .configs)
    }
    for overlay in folder.overlayFiles("settings.json") {
      try builder.load(configFile: WorkbenchHome.display(overlay), layer: .configs)
    }
    for file in options.configFiles {
      do {
        try builder.load(configFile: file, layer: .configFile)
      } catch {
        problems += error.diagnostics
      }
    }
    return builder
  }

  /// The layers of the command line (and of what a live run was sent): --set, --lang and --seed.
  static func commandLineLayers(
    _ options: FlowOptions, into builder: inout SettingsBuilder, problems: inout [Diagnostic]
  ) {
    let assignments =
      options.assignments.map { (origin: "--set", text: $0) } + options.sentAssignments
    for (origin, assignment) in assignments {
      do {
        let (key, value) = try SettingsBuilder.parseAssignment(assignment)
        builder.assign(key, text: value, source: SettingSource(layer: .commandLine, origin: origin, line: nil))
      } catch {
        problems += error.diagnostics
      }
    }
    if let language = options.language {
      builder.assign(
        "messages.language", text: language, source: SettingSource(layer: .commandLine, origin: "--lang", line: nil))
    }
    if let seed = options.seed {
      builder.assign(
        "flow.seed", .integer(seed), source: SettingSource(layer: .commandLine, origin: "--seed", line: nil))
    }
  }
}
