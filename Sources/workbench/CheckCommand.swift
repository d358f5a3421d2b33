import ArgumentParser
import Diagnostics
import Flows
import Logging
import RunComposition
import Session
import Settings

struct CheckCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "check",
    abstract: "Validate a flow without running it.",
    discussion: """
      Loads the flow in its sandbox and lists every problem: Lua syntax, misuse of the flow \
      API, message keys missing from any language's catalog, settings that are unknown, \
      of the wrong type or out of range in any layer, and measurements the flow reads that \
      no estimator provides (or, with --input TRACE, that the trace does not hold) or that \
      a step compares with numbers when they hold something else. Exits 0 when there is \
      none, 2 otherwise.

      Examples:
        workbench check examples/liveness.lua
        workbench check examples/liveness.lua --config my-settings.json \\
          --set flow.time_limit=20
        workbench check examples/liveness.lua --input examples/traces/liveness-pass.jsonl
      """)

  @Argument(help: ArgumentHelp("The flow script (.lua).", valueName: "flow"))
  var flow: String

  @Option(
    name: .long,
    help: ArgumentHelp(
      "A measurement trace (.jsonl) to hold the flow's fields against instead of the estimators' (a recording is measured by the estimators).",
      valueName: "path"))
  var input: String?

  @Flag(name: .long, help: "A message key missing from a language other than the fallback is an error, not a warning.")
  var strict = false

  @OptionGroup var settings: FlowSettingsOptions
  @OptionGroup var logging: LoggingOptions

  func run() throws {
    let logger: Logger
    do { logger = try logging.bootstrap() } catch { throw fail(error) }
    let report: FlowCheckReport
    do {
      let measurements =
        if let input, InputSpec.isTrace(input) {
          try MeasurementReferences.trace(input)
        } else {
          MeasurementReferences.estimators(try WorkbenchHome.locate(), settings: nil, logger: logger)
        }
      report = try FlowChecker.check(
        settings.flowOptions(path: flow), measurements: measurements, strict: strict, logger: logger)
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
