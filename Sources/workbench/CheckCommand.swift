import ArgumentParser
import Diagnostics
import Flows
import Logging
import Session

struct CheckCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "check",
    abstract: "Validate a flow without running it.",
    discussion: """
      Loads the flow in its sandbox and lists every problem: Lua syntax, misuse of the flow \
      API, message keys missing from any language's catalog, and settings that are unknown, \
      of the wrong type or out of range in any layer. Exits 0 when there is none, 2 otherwise.

      Examples:
        workbench check examples/liveness.lua
        workbench check examples/liveness.lua --config my-settings.json \\
          --set flow.time_limit=20
      """)

  @Argument(help: ArgumentHelp("The flow script (.lua).", valueName: "flow"))
  var flow: String

  @OptionGroup var settings: FlowSettingsOptions
  @OptionGroup var logging: LoggingOptions

  func run() throws {
    let logger: Logger
    do { logger = try logging.bootstrap() } catch { throw fail(error) }
    let report: FlowCheckReport
    do {
      report = try FlowChecker.check(settings.flowOptions(path: flow), logger: logger)
    } catch {
      throw fail(error)
    }
    DiagnosticPrinter.printWarnings(report.warnings)
    if report.problems.isEmpty {
      standardOutput("ok: \(report.summary)")
      return
    }
    DiagnosticPrinter.print(WorkbenchError(.usage, report.problems, detail: report.detail))
    standardError("\(report.problems.count) problem\(report.problems.count == 1 ? "" : "s") in \(flow)")
    throw ExitCode(ExitStatus.usage.rawValue)
  }
}
