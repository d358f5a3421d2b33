import ArgumentParser
import Diagnostics
import Flows
import Foundation
import Licensing
import Logging
import Reporting
import Scenarios
import Session

struct TestCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "test",
    abstract: "Run scenario files: a flow, an input, faults to inject, and what must happen.",
    discussion: """
      Each scenario file is Lua that returns a scenario (or a list of them): the flow, the \
      input (a trace, a recording, or a synthetic scene), settings, faults (dropped, \
      duplicated or frozen frames, clock jitter, glare, darkness, blur, noise, an occluding \
      patch, a corrupt JPEG, an unplugged camera, a replayed clip, changed measurements) and \
      expectations (the result, events in order, events that must not come, counts, times). \
      Folders are searched for *.lua. Prints TAP; exits 0 only when every scenario passes, \
      1 when one fails, 2 when a file does not load or an option is wrong (docs/qa.md).

      Examples:
        workbench test examples/qa
        workbench test examples/qa --jobs 2 --junit out/junit.xml
        workbench test examples/qa --shard 2/4
      """)

  @Argument(help: ArgumentHelp("Scenario files or folders.", valueName: "path"))
  var paths: [String]

  @Option(name: .long, help: ArgumentHelp("Also write a JUnit XML report.", valueName: "file"))
  var junit: String?

  @Option(name: .long, help: ArgumentHelp("Run this many scenarios at once, each in its own process.", valueName: "n"))
  var jobs: Int = 1

  @Option(
    name: .long,
    help: ArgumentHelp("Run only part K of N of the suite (every N-th scenario from the K-th).", valueName: "K/N"))
  var shard: String?

  @Option(
    name: .long, help: ArgumentHelp("Run only scenario N of a file that returns a list.", valueName: "n"))
  var only: Int?

  @Option(name: .long, help: ArgumentHelp("Run only scenarios whose name contains this text.", valueName: "text"))
  var filter: String?

  @Option(
    name: .long,
    help: ArgumentHelp("Write each scenario's session report into a folder of its own here.", valueName: "folder"))
  var report: String?

  @Flag(name: .long, help: .hidden)
  var worker = false

  @OptionGroup var license: LicenseOptions
  @OptionGroup var logging: LoggingOptions

  func validate() throws {
    guard jobs >= 1, jobs <= 64 else { throw ValidationError("--jobs takes 1 to 64") }
    if let shard, Shard.parse(shard) == nil {
      throw ValidationError("--shard takes K/N with 1 ≤ K ≤ N, such as 2/4")
    }
  }

  func run() throws {
    let logger: Logger
    do { logger = try logging.bootstrap() } catch { throw fail(error) }
    let files: [String]
    do {
      let found = try ScenarioRunner.search(paths)
      files = found.scenarios
      for flow in found.flows {
        standardError("note: \(flow) is a flow, not a scenario file: skipped")
      }
    } catch {
      throw fail(error)
    }
    var (scenarios, broken) = SuiteRunner.collect(files: files)
    if let only { scenarios = scenarios.filter { ($0.index ?? 1) == only } }
    if let filter { scenarios = scenarios.filter { $0.name.contains(filter) } }
    if let shard = shard.flatMap(Shard.parse) {
      scenarios = shard.select(scenarios)
      broken = shard.index == 1 ? broken : []
    }

    var environment = ScenarioRunner.Environment(logger: logger)
    let gate = license.gate(settingsDirectory: nil)
    environment.licenseCheck = { features throws(WorkbenchError) in _ = try gate.check(features: features) }
    environment.reportFolder = self.report
    if let folder = self.report, !FileManager.default.fileExists(atPath: folder) {
      // The reports' folder is made like any output's: its parent must exist.
      do {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
      } catch {
        throw fail(
          WorkbenchError(
            .usage, "cannot make the reports' folder: \(error.localizedDescription)",
            at: SourceLocation(file: folder, key: "--report"), help: "check that its parent folder exists"))
      }
    }

    if worker {
      // One scenario, its outcome as one JSON line for the parent.
      for scenario in scenarios.prefix(1) {
        standardOutput(SuiteReport.json(ScenarioRunner.run(scenario, environment: environment)))
      }
      return
    }

    let total = broken.count + scenarios.count
    guard total > 0 else {
      throw fail(WorkbenchError(.usage, "no scenarios to run", help: "check the paths, --only, --filter and --shard"))
    }
    standardOutput("TAP version 14")
    standardOutput("1..\(total)")
    var outcomes: [ScenarioOutcome] = []
    let progress = ProgressBar(total: total)
    func report(_ outcome: ScenarioOutcome) {
      outcomes.append(outcome)
      progress.clear()
      standardOutput(SuiteReport.tap(outcome, number: outcomes.count))
      progress.advance(passed: outcome.passed)
    }
    for outcome in broken { report(outcome) }
    var runner = SuiteRunner()
    runner.jobs = jobs
    let executable =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let licenseArguments =
      (license.licenseConfig.map { ["--license-config", $0] } ?? [])
      + (license.licenseKey.map { ["--license-key", $0] } ?? [])
    let reportFolder = self.report
    runner.workerCommand = { address in
      [
        executable, "test", address.file, "--worker", "--only", String(address.index ?? 1), "--log-level",
        logging.logLevel,
      ]
        + licenseArguments + (reportFolder.map { ["--report", $0] } ?? [])
    }
    runner.run(scenarios, environment: environment) { _, outcome in report(outcome) }

    let failed = outcomes.filter { !$0.passed }
    standardOutput("# \(outcomes.count - failed.count) of \(outcomes.count) scenarios passed")
    for outcome in failed { standardOutput("# failed: \(outcome.name): \(outcome.reproduce)") }
    if let junit {
      do {
        let file = try OutputFile(path: junit)
        file.write(Array(SuiteReport.junit(outcomes).utf8))
        try file.finish()
      } catch {
        throw fail(error)
      }
    }
    // Only files that do not load: the suite itself is broken (2); any failed scenario: 1.
    if !failed.isEmpty { throw ExitCode(failed.allSatisfy { $0.exitStatus == 2 && $0.error != nil } ? 2 : 1) }
  }
}
