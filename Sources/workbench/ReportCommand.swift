import ArgumentParser
import Diagnostics
import SessionReport

struct ReportCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "report",
    abstract: "Write the session report of a run: one self-contained HTML page (docs/report.md).",
    discussion: """
      Reads what a run wrote (--events, and --trace-out for the plots) and writes \
      DIR/report.html: the result, the steps, statuses and hints on a timeline, one plot per \
      measurement with the thresholds of the settings, the captured images, the settings and \
      the result. The page needs nothing else: mail it or attach it to a CI job. Images of \
      captures are looked for as the events name them from the current folder, then beside \
      the events file.

      Example:
        workbench run examples/hkid-2018.lua --input card.avi --artifacts out \\
          --events out/events.jsonl --trace-out out/trace.jsonl
        workbench settings examples/hkid-2018.lua --json > out/settings.json
        workbench report --events out/events.jsonl --trace out/trace.jsonl \\
          --settings out/settings.json --out out/report
      """)

  @Option(name: .long, help: ArgumentHelp("The events of the run (run --events).", valueName: "file"))
  var events: String

  @Option(name: .long, help: ArgumentHelp("The measurements the flow saw (run --trace-out).", valueName: "file"))
  var trace: String?

  @Option(
    name: .long, help: ArgumentHelp("The effective settings (workbench settings FLOW --json).", valueName: "file"))
  var settings: String?

  @Option(
    name: .long, help: ArgumentHelp("The folder to write report.html into (created if missing).", valueName: "dir"))
  var out: String

  func run() throws {
    do {
      let input = try SessionReport.Input.load(events: events, trace: trace, settings: settings)
      standardOutput(try SessionReport.write(input, to: out))
    } catch {
      throw fail(error)
    }
  }
}
