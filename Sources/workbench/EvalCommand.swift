import ArgumentParser
import Diagnostics
import Evaluation
import Foundation
import Logging

struct EvalCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "eval",
    abstract: "Evaluate a flow over a labelled corpus: ISO/IEC 30107-3 error rates, sweeps, a DET report.",
    discussion: """
      Runs the flow on every session of the corpus (a .jsonl or .csv manifest, or a folder of \
      bona_fide/ and attack/<species>/) and writes sessions.jsonl, summary.json (BPCER, APCER per \
      species and its maximum, APNRR, BPNRR, with 95% Clopper–Pearson intervals), report.html and \
      run.json into --out. Each input is measured once into a cache; every settings point of a \
      sweep, and every later evaluation, replays the measurements. Exit codes: 0 finished, \
      1 no point meets --target-apcer, 2 a corpus, flow or option problem, 3 license, \
      130 interrupted (--resume goes on). docs/eval.md.

      Examples:
        workbench eval examples/liveness-blink.lua examples/eval/corpus.jsonl --out out/eval
        workbench eval FLOW CORPUS --out out --sweep liveness.blink_threshold=0.2:0.5:0.05 --target-apcer 0.05
        workbench eval FLOW CORPUS --out out/shard-1 --shard 1/4
        workbench eval merge out/shard-* --out out/all
      """,
    subcommands: [EvalRunCommand.self, EvalMergeCommand.self],
    defaultSubcommand: EvalRunCommand.self)
}

struct EvalRunCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "run", abstract: "Evaluate FLOW over CORPUS (the default: `workbench eval FLOW CORPUS ...`).")

  @Argument(help: ArgumentHelp("The flow script.", valueName: "flow"))
  var flow: String

  @Argument(help: ArgumentHelp("A manifest (.jsonl, .csv) or a corpus folder.", valueName: "corpus"))
  var corpus: String

  @Option(name: .long, help: ArgumentHelp("The folder for the results.", valueName: "folder"))
  var out: String

  @Option(
    name: .long,
    help: ArgumentHelp(
      "The measurement cache (default: .workbench-cache beside the corpus, else under ~/.cache/workbench/eval).",
      valueName: "folder"))
  var cache: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Sweep a setting over values (KEY=V1,V2,... or KEY=FROM:TO:STEP); repeatable, a grid.", valueName: "key=values"))
  var sweep: [String] = []

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Score each session from a measurement, higher meaning bona fide (FIELD[:min|max|mean|last], -FIELD reverses).",
      valueName: "field"))
  var score: String?

  @Option(
    name: .customLong("no-response"),
    help: ArgumentHelp("Flow reasons that count as no decision (APNRR/BPNRR), e.g. end_of_input.", valueName: "reasons")
  )
  var noResponse: String?

  @Option(
    name: .customLong("target-apcer"),
    help: ArgumentHelp("Choose the point with the lowest BPCER whose APCER (max) is at most this.", valueName: "rate"))
  var targetAPCER: Double?

  @Option(
    name: .long, help: ArgumentHelp("Evaluate only share I of N of the corpus (by session id).", valueName: "I/N"))
  var shard: String?

  @Flag(name: .long, help: "Keep the finished sessions of an earlier run into --out and go on.")
  var resume = false

  @Option(
    name: .long,
    help: ArgumentHelp("Evaluate with this many worker processes, each with its own estimators.", valueName: "n"))
  var jobs: Int = 1

  @Option(name: .long, help: .hidden)
  var worker: String?

  @Flag(name: .long, help: "Print no progress and no summary.")
  var quiet = false

  @Flag(
    name: .customLong("keep-events"),
    help: "Keep each session's events and report page under sessions/ in --out; the page links them.")
  var keepEvents = false

  @OptionGroup var settings: FlowSettingsOptions
  @OptionGroup var license: LicenseOptions
  @OptionGroup var logging: LoggingOptions

  func validate() throws {
    if let shard, Self.parseShard(shard) == nil {
      throw ValidationError("--shard takes I/N with 1 ≤ I ≤ N, such as 2/4")
    }
    guard (1...64).contains(jobs) else { throw ValidationError("--jobs takes 1 to 64") }
    if let worker, Self.parseShard(worker) == nil { throw ValidationError("--worker takes K/N") }
    if let targetAPCER, !(0...1).contains(targetAPCER) {
      throw ValidationError("--target-apcer takes a rate from 0 to 1, such as 0.05")
    }
  }

  static func parseShard(_ text: String) -> (index: Int, count: Int)? {
    let parts = text.split(separator: "/")
    guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1,
      (1...count).contains(index)
    else { return nil }
    return (index, count)
  }

  func run() throws {
    let logger: Logger
    do { logger = try logging.bootstrap() } catch { throw fail(error) }
    var options = EvaluationOptions(flow: settings.flowOptions(path: flow), corpusPath: corpus, outFolder: out)
    options.cacheFolder = cache
    do {
      options.grid = SettingsGrid(axes: try sweep.map(SettingsGrid.axis))
      options.score = try score.map(ScoreSpec.init)
    } catch {
      throw fail(error)
    }
    options.noResponseReasons = (noResponse ?? "").split(separator: ",").map {
      $0.trimmingCharacters(in: .whitespaces)
    }.filter { !$0.isEmpty }
    options.targetAPCER = targetAPCER
    options.shard = shard.flatMap(Self.parseShard)
    options.resume = resume
    options.showProgress = !quiet && worker == nil
    options.jobs = jobs
    options.keepEvents = keepEvents
    options.worker = worker.flatMap(Self.parseShard)
    options.workerCommand = workerCommand()
    let gate = license.gate(settingsDirectory: settings.settingsDirectory)
    options.licenseCheck = { features throws(WorkbenchError) in _ = try gate.check(features: features) }
    let outcome = Evaluation.run(options, logger: logger)
    if options.worker != nil {
      if !outcome.problems.isEmpty { DiagnosticPrinter.print(WorkbenchError(outcome.status, outcome.problems)) }
      if outcome.status != .passed { throw ExitCode(outcome.status.rawValue) }
      return
    }
    // A shard's own summary is part of the whole: only the merge says whether a point meets the target.
    try finish(outcome, out: out, quiet: quiet, checkTarget: shard == nil)
  }

  /// This evaluation as worker K of N: the same flow, corpus, settings and
  /// options, without progress.
  private func workerCommand() -> @Sendable (Int, Int) -> [String] {
    let executable =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    var arguments = ["eval", "run", flow, corpus, "--out", out, "--quiet", "--log-level", logging.logLevel]
    if let cache { arguments += ["--cache", cache] }
    for axis in sweep { arguments += ["--sweep", axis] }
    if let score { arguments += ["--score", score] }
    if let noResponse { arguments += ["--no-response", noResponse] }
    if let targetAPCER { arguments += ["--target-apcer", String(targetAPCER)] }
    if let shard { arguments += ["--shard", shard] }
    if keepEvents { arguments.append("--keep-events") }
    for file in settings.config { arguments += ["--config", file] }
    for assignment in settings.assignments { arguments += ["--set", assignment] }
    if let lang = settings.lang { arguments += ["--lang", lang] }
    if let seed = settings.seed { arguments += ["--seed", String(seed)] }
    if let folder = settings.settingsDirectory { arguments += ["--settings-dir", folder] }
    if let config = license.licenseConfig { arguments += ["--license-config", config] }
    if let key = license.licenseKey { arguments += ["--license-key", key] }
    let fixed = arguments
    return { index, count in [executable] + fixed + ["--worker", "\(index)/\(count)"] }
  }
}

struct EvalMergeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "merge",
    abstract: "Join the out folders of an evaluation's shards (--shard I/N) into one.",
    discussion: "The merged summary.json equals the one of the same evaluation run unsharded, byte for byte.")

  @Argument(help: ArgumentHelp("The shards' out folders.", valueName: "folder"))
  var folders: [String]

  @Option(name: .long, help: ArgumentHelp("The folder for the merged results.", valueName: "folder"))
  var out: String

  @Flag(name: .long, help: "Print no summary.")
  var quiet = false

  func run() throws {
    try finish(Evaluation.merge(folders, into: out), out: out, quiet: quiet)
  }
}

/// Prints the problems or the summary, and exits with the evaluation's status.
private func finish(_ outcome: EvaluationOutcome, out: String, quiet: Bool, checkTarget: Bool = true) throws {
  if !outcome.problems.isEmpty {
    DiagnosticPrinter.print(WorkbenchError(outcome.status, outcome.problems))
  }
  if let summary = outcome.summary {
    if !quiet {
      for line in SummaryText.lines(summary) { standardOutput(line) }
      let written = ["summary.json", "sessions.jsonl", "report.html"].map { out + "/" + $0 }.filter {
        FileManager.default.fileExists(atPath: $0)
      }
      standardOutput("wrote " + written.joined(separator: ", "))
    }
    if checkTarget, summary["target_apcer"] != nil, summary["chosen"] == .null { throw ExitCode(1) }
  }
  if outcome.status != .passed { throw ExitCode(outcome.status.rawValue) }
}
