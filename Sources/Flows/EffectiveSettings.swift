import Diagnostics
import Logging
import Settings

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
    var problems: [Diagnostic] = []
    let builder = try SettingsLayering.builder(options, folder: folder, problems: &problems)
    let (settings, resolveProblems) = builder.resolve()
    problems += resolveProblems
    if !problems.isEmpty { throw WorkbenchError(.usage, problems) }
    return settings
  }
}
