import ArgumentParser
import Diagnostics
import Flows
import Foundation
import Logging

struct RunCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "run",
    abstract: "Run a flow over an input and report what happened.",
    discussion: """
      The input is a measurement trace (JSON Lines, one frame per line; docs/traces.md). \
      Time comes from the input, so the same trace always gives the same events.

      Examples:
        workbench run examples/liveness.lua \\
          --input examples/traces/liveness-pass.jsonl
        workbench run examples/liveness.lua --events - --quiet \\
          --input examples/traces/liveness-slow-blink.jsonl
        workbench run examples/liveness.lua --lang zh-HK \\
          --set flow.time_limit=20 --input session.jsonl \\
          --events events.jsonl --trace-out seen.jsonl
      """)

  @Argument(help: ArgumentHelp("The flow script (.lua).", valueName: "flow"))
  var flow: String

  @Option(name: .long, help: ArgumentHelp("The input: a measurement trace (.jsonl).", valueName: "path"))
  var input: String

  @Option(
    name: .long, help: ArgumentHelp("Write events as JSON Lines to this file, or - for stdout.", valueName: "file"))
  var events: String?

  @Option(
    name: .customLong("trace-out"),
    help: ArgumentHelp("Write the measurements the flow saw, as a replayable trace.", valueName: "file"))
  var traceOut: String?

  @Option(name: .long, help: ArgumentHelp("Seed of the random step order (the setting flow.seed).", valueName: "n"))
  var seed: Int64?

  @Flag(name: .long, help: "Replay at the speed of the input's clock instead of as fast as possible.")
  var realtime = false

  @Flag(name: .shortAndLong, help: "No live status line and no summary.")
  var quiet = false

  @OptionGroup var settings: FlowSettingsOptions
  @OptionGroup var logging: LoggingOptions

  func run() throws {
    let logger: Logger
    do { logger = try logging.bootstrap() } catch { throw fail(error) }
    var flowOptions = settings.flowOptions(path: flow)
    flowOptions.seed = seed
    var options = RunOptions(flow: flowOptions, inputPath: input)
    options.eventsPath = events
    options.traceOutPath = traceOut
    options.showStatusLine = !quiet
    options.realtime = realtime

    let outcome = FlowSession.run(options, logger: logger)
    if !outcome.problems.isEmpty {
      DiagnosticPrinter.print(WorkbenchError(outcome.status, outcome.problems, detail: outcome.detail))
    }
    if !quiet, let result = outcome.result {
      let line = RunSummary.line(result, flowName: outcome.flowName ?? flow)
      if outcome.eventsToStandardOutput { standardError(line) } else { standardOutput(line) }
    }
    if outcome.status != .passed { throw ExitCode(outcome.status.rawValue) }
  }
}

enum RunSummary {
  static func line(_ result: FlowResult, flowName: String) -> String {
    if result.success { return "PASSED  \(flowName): \(result.message)" }
    return "FAILED  \(flowName): \(result.message) (reason \(result.reason), code \(result.code))"
  }
}
