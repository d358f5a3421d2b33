import ArgumentParser
import Diagnostics
import Flows
import Logging
import Session
import Settings

struct SettingsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "settings",
    abstract: "Print the effective settings and where each value came from.",
    discussion: """
      Layers, lowest first: built-in defaults < configs/settings.json < values the flow \
      sets < --config FILE < --set key=value. Without a flow, the flow layer is left out.

      configs/settings.json holds every default of the engine and its estimators (as \
      LUNA ID's faceengine.conf does): copy it into a --settings-dir folder to replace it \
      whole, or give single keys with --config FILE or --set. --defaults prints it with \
      each key's description and range (--json: the file itself).

      Examples:
        workbench settings examples/liveness.lua
        workbench settings examples/liveness.lua --set flow.time_limit=20 --json
        workbench settings --defaults
      """)

  @Argument(help: ArgumentHelp("The flow script (.lua); optional.", valueName: "flow"))
  var flow: String?

  @Flag(name: .long, help: "Print JSON instead of a table.")
  var json = false

  @Flag(
    name: .long,
    help: "Print the engine's defaults file (configs/settings.json, or --settings-dir's) with each key's description.")
  var defaults = false

  @OptionGroup var settings: FlowSettingsOptions
  @OptionGroup var logging: LoggingOptions

  func run() throws {
    let logger: Logger
    do { logger = try logging.bootstrap() } catch { throw fail(error) }
    if defaults {
      guard flow == nil, settings.config.isEmpty, settings.assignments.isEmpty, settings.lang == nil,
        settings.seed == nil
      else {
        throw fail(
          WorkbenchError(
            .usage, "--defaults prints the defaults file alone: leave out the flow, --config, --set, --lang and --seed",
            help: "workbench settings --defaults [--settings-dir DIR] [--json]"))
      }
    }
    let resolved: ResolvedSettings
    do {
      resolved = try EffectiveSettings.resolve(
        flow: flow, options: settings.flowOptions(path: flow ?? ""), logger: logger)
    } catch {
      throw fail(error)
    }
    if defaults {
      standardOutput(json ? resolved.nested.jsonText : SettingsTable.render(resolved))
      return
    }
    standardOutput(json ? SettingsTable.json(resolved).jsonText : SettingsTable.render(resolved))
  }
}
