import Diagnostics
import Foundation
import Logging
import Settings

/// What `workbench check` found.
public struct FlowCheckReport: Sendable {
  public var problems: [Diagnostic]
  public var summary: String
  public var detail: String?
}

/// Validates a flow without running it: loading it in the sandbox finds
/// syntax errors, API misuse and settings problems; the message keys it may
/// show are checked against every language's catalog.
public enum FlowChecker {
  public static func check(_ options: FlowOptions, logger: Logger) throws(WorkbenchError) -> FlowCheckReport {
    var problems: [Diagnostic] = []
    var traceback: String?
    guard let flow = try FlowLoader.load(options, logger: logger, problems: &problems, traceback: &traceback) else {
      return FlowCheckReport(problems: problems, summary: "", detail: traceback)
    }
    let source = (try? String(contentsOfFile: options.flowPath, encoding: .utf8)) ?? ""
    let keys = flow.description.messageKeys + messageKeys(inSource: source)
    problems += flow.catalogs.problems(forKeys: keys)
    let stepCount = flow.description.steps.count
    let summary =
      "\(flow.displayPath): flow '\(flow.description.name)', \(stepCount) step\(stepCount == 1 ? "" : "s"), "
      + "\(Set(keys).count) message key\(Set(keys).count == 1 ? "" : "s") in \(flow.catalogs.languages.count) languages "
      + "(\(flow.catalogs.languages.joined(separator: ", "))), \(flow.settings.all.count) settings"
    return FlowCheckReport(problems: problems, summary: summary, detail: nil)
  }

  /// Message keys passed as string literals to hint(...) or text(...) in a
  /// flow's source, e.g. ctx.hint("blink.prompt") or wb.text 'done'.
  static func messageKeys(inSource source: String) -> [String] {
    let pattern = /(?:hint|text)\s*\(?\s*["']([A-Za-z0-9_.\-]+)["']/
    return source.matches(of: pattern).map { String($0.output.1) }
  }
}

/// The settings as `workbench settings` shows them.
public enum EffectiveSettings {
  public static func resolve(flow: String?, options: FlowOptions, logger: Logger) throws(WorkbenchError)
    -> ResolvedSettings
  {
    if flow != nil {
      let loaded = try FlowLoader.load(options, logger: logger)
      return loaded.settings
    }
    let home = try WorkbenchHome.locate()
    let folder = try SettingsFolder.make(home: home, settingsDirectory: options.settingsDirectory)
    var builder = try SettingsBuilder(declarations: BuiltinSettings.declarations)
    if let settingsFile = try folder.checkedJSONFile("settings.json") {
      try builder.load(configFile: WorkbenchHome.display(settingsFile), layer: .configs)
    }
    for file in options.configFiles { try builder.load(configFile: file, layer: .configFile) }
    for assignment in options.assignments {
      let (key, value) = try SettingsBuilder.parseAssignment(assignment)
      builder.assign(key, text: value, source: SettingSource(layer: .commandLine, origin: "--set"))
    }
    if let language = options.language {
      builder.assign("messages.language", text: language, source: SettingSource(layer: .commandLine, origin: "--lang"))
    }
    let (settings, problems) = builder.resolve()
    if !problems.isEmpty { throw WorkbenchError(.usage, problems) }
    return settings
  }
}
