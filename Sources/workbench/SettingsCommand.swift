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

      Examples:
        workbench settings examples/liveness.lua
        workbench settings examples/liveness.lua --set flow.time_limit=20 --json
      """)

  @Argument(help: ArgumentHelp("The flow script (.lua); optional.", valueName: "flow"))
  var flow: String?

  @Flag(name: .long, help: "Print JSON instead of a table.")
  var json = false

  @OptionGroup var settings: FlowSettingsOptions
  @OptionGroup var logging: LoggingOptions

  func run() throws {
    let logger: Logger
    do { logger = try logging.bootstrap() } catch { throw fail(error) }
    let resolved: ResolvedSettings
    do {
      resolved = try EffectiveSettings.resolve(
        flow: flow, options: settings.flowOptions(path: flow ?? ""), logger: logger)
    } catch {
      throw fail(error)
    }
    standardOutput(json ? SettingsTable.json(resolved).jsonText : SettingsTable.render(resolved))
  }
}
