import ArgumentParser
import Diagnostics
import Flows
import Foundation
import Logging
import RunComposition
import Session

struct Workbench: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "workbench",
    abstract: "Run and check Lua liveness flows against camera sessions and measurement traces.",
    discussion: """
      A flow is a Lua script that declares an interaction (blink, turn the head, flip a card) \
      with its thresholds, timeouts and hints. workbench feeds it per-frame measurements and \
      reports what happened as events.

      Exit codes: 0 passed, 1 failed, 2 usage, script, settings or output error, \
      3 license error, 4 input error, 5 gallery error, 130 interrupted (docs/exit-codes.md).

      Example:
        workbench run examples/liveness.lua \\
          --input examples/traces/liveness-pass.jsonl
      """,
    version: WorkbenchVersion.current,
    subcommands: [
      RunCommand.self, CheckCommand.self, NewCommand.self, SettingsCommand.self, RecordCommand.self,
      EstimatorsCommand.self,
      DevicesCommand.self, ProbeCommand.self, SynthCommand.self,
      LicenseCommand.self, SignCommand.self, VerifyCommand.self, TestCommand.self, EvalCommand.self, ReportCommand.self,
      GalleryCommand.self, DoctorCommand.self,
    ])
}

/// Options every command that loads a flow shares.
struct FlowSettingsOptions: ParsableArguments {
  @Option(
    name: .long,
    help: ArgumentHelp("A JSON settings file, above the flow's own values (repeatable; later wins).", valueName: "file")
  )
  var config: [String] = []

  @Option(
    name: .customLong("set"),
    help: ArgumentHelp(
      "Set one setting, above everything else (repeatable), e.g. --set flow.time_limit=20.", valueName: "key=value"))
  var assignments: [String] = []

  @Option(
    name: .long,
    help: ArgumentHelp("Language of the hints, e.g. en or zh-HK (the setting messages.language).", valueName: "code"))
  var lang: String?

  // Unconditional, so that `--seed -1` reaches the setting's range check
  // instead of being taken for an option.
  @Option(
    name: .long, parsing: .unconditional,
    help: ArgumentHelp("Seed of the random step order (the setting flow.seed).", valueName: "n"))
  var seed: Int64?

  @Option(
    name: .customLong("settings-dir"),
    help: ArgumentHelp(
      "A folder whose settings.json, messages/*.json and license.conf replace the bundled ones of configs/ (each complete).",
      valueName: "folder"))
  var settingsDirectory: String?

  func flowOptions(path: String) -> FlowOptions {
    var options = RunSettings.flowOptions(path)
    options.settingsDirectory = settingsDirectory
    options.configFiles = config
    options.assignments = assignments
    options.language = lang
    options.seed = seed
    return options
  }
}

struct LoggingOptions: ParsableArguments {
  @Option(
    name: .long, help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level"))
  var logLevel: String = "info"

  @Option(name: .long, help: ArgumentHelp("Also write the log of this session to a file.", valueName: "file"))
  var logFile: String?

  func validate() throws {
    guard Logger.Level(rawValue: logLevel) != nil else {
      throw ValidationError("--log-level must be one of: trace, debug, info, notice, warning, error, critical")
    }
  }

  func bootstrap() throws(WorkbenchError) -> Logger {
    try WorkbenchLog.bootstrap(level: Logger.Level(rawValue: logLevel) ?? .info, file: logFile)
    return Logger(label: "workbench")
  }
}

/// Prints the error and ends the process with its exit code.
func fail(_ error: WorkbenchError) -> ExitCode {
  DiagnosticPrinter.print(error)
  return ExitCode(error.status.rawValue)
}

func standardOutput(_ text: String) {
  FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

func standardError(_ text: String) {
  FileHandle.standardError.write(Data((TerminalText.escaped(text) + "\n").utf8))
}
