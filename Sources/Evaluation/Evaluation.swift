import Crypto
import Diagnostics
import EvaluationReport
import FileSystem
import Flows
import Foundation
import Interrupts
import JSONCore
import Logging
import RunComposition
import Session
import Settings

/// What `workbench eval` is asked to do. docs/eval.md.
public struct EvaluationOptions: Sendable {
  /// The flow with the settings of every point (`--set`, `--config`, ...).
  public var flow: FlowOptions
  public var corpusPath: String
  public var outFolder: String
  /// Nil: `.workbench-cache` beside the corpus.
  public var cacheFolder: String?
  public var grid = SettingsGrid()
  public var score: ScoreSpec?
  /// Flow reasons that count as no decision (`--no-response`).
  public var noResponseReasons: [String] = []
  public var targetAPCER: Double?
  /// 1-based share of the corpus, by session id (`--shard I/N`).
  public var shard: (index: Int, count: Int)?
  /// Keep the finished sessions of an earlier run into `outFolder`.
  public var resume = false
  public var showProgress = false
  /// Keep each session's events and report page under `sessions/` in the
  /// out folder; the evaluation's page links them.
  public var keepEvents = false
  /// Worker processes, each with its own estimators (`--jobs N`).
  public var jobs = 1
  /// The command line of worker K of N (1-based): this evaluation with
  /// `--worker K/N`. Needed when `jobs` is above 1.
  public var workerCommand: (@Sendable (Int, Int) -> [String])?
  /// This process is worker K of N: it evaluates the sessions at positions
  /// K, K+N, ... that the out folder does not hold yet, into a part file.
  public var worker: (index: Int, count: Int)?
  public var licenseCheck: (@Sendable ([String]) throws(WorkbenchError) -> Void)?

  public init(flow: FlowOptions, corpusPath: String, outFolder: String) {
    self.flow = flow
    self.corpusPath = corpusPath
    self.outFolder = outFolder
  }
}

/// How an evaluation ended, for the command to print.
public struct EvaluationOutcome: Sendable {
  public var status: ExitStatus
  /// The summary's text, when the evaluation finished.
  public var summary: JSONValue?
  public var problems: [Diagnostic] = []
  public var sessionsRun = 0
  public var measured = 0
  /// Frames the flow processed in the sessions run now.
  public var frames = 0
}

/// Runs a flow over a labelled corpus and writes `sessions.jsonl`,
/// `summary.json`, `report.html` and `run.json` into the out folder.
public enum Evaluation {
  public static let sessionsFile = "sessions.jsonl"
  public static let summaryFile = "summary.json"
  public static let reportFile = "report.html"
  public static let runFile = "run.json"

  public static func run(
    _ options: EvaluationOptions, logger: Logger, estimators: any EstimatorProvider = StandardEstimators()
  ) -> EvaluationOutcome {
    do {
      return try evaluate(options, logger: logger, estimators: estimators)
    } catch {
      return EvaluationOutcome(status: error.status, problems: error.diagnostics)
    }
  }

  private static func evaluate(_ options: EvaluationOptions, logger: Logger, estimators: any EstimatorProvider)
    throws(WorkbenchError) -> EvaluationOutcome
  {
    let started = Date()
    let corpus = try Corpus.load(options.corpusPath)
    let points = try settingsPoints(options, logger: logger)
    let flowName = points.flowName
    // The command line's score wins over the one the flow declares.
    let scoreName = options.score?.description ?? (points.declaresScore ? SummaryHeader.flowScore : nil)
    let sessions = options.shard.map { corpus.shard($0.index, of: $0.count) } ?? corpus.sessions
    try makeFolder(options.outFolder)
    let cache = try MeasurementCache(folder: options.cacheFolder ?? defaultCache(for: options.corpusPath))
    let evaluator = SessionEvaluator(
      flow: options.flow, cache: cache,
      score: options.score.map { .measurement($0) } ?? (points.declaresScore ? .flow : nil),
      noResponseReasons: Set(options.noResponseReasons), licenseCheck: options.licenseCheck, estimators: estimators,
      logger: logger)
    if options.keepEvents { evaluator.keptSessions = options.outFolder }
    if !options.resume && options.worker == nil {
      // The pages of an earlier run are not this one's.
      try? FileManager.default.removeItem(atPath: options.outFolder + "/sessions")
    }
    if let worker = options.worker {
      return try runWorker(worker, sessions: sessions, points: points.all, options: options, evaluator: evaluator)
    }
    let log = try SessionLog(
      path: options.outFolder + "/" + sessionsFile, resume: options.resume, points: points.all)
    let progress = EvaluationProgress(total: sessions.count * points.all.count, enabled: options.showProgress)
    progress.start(done: log.finishedCount)
    var interrupted = false
    var counts = CacheCounts()
    if options.jobs > 1, let command = options.workerCommand {
      let pool = WorkerPool(folder: options.outFolder, jobs: options.jobs, command: command)
      (interrupted, counts) = try pool.run(into: log, progress: progress)
    } else {
      interrupted = try evaluate(sessions, at: points.all, with: evaluator, into: log) {
        progress.advance(cached: evaluator.replayed)
      }
      counts = evaluator.counts
    }
    progress.finish()
    let header = SummaryHeader(
      flow: flowName, score: scoreName, noResponseReasons: options.noResponseReasons.sorted(),
      sweepKeys: options.grid.axes.map(\.key), targetAPCER: options.targetAPCER,
      pointSettings: points.all.map(\.settings))
    var run = RunFacts(
      started: started, counts: counts, resumed: log.resumedCount, interrupted: interrupted,
      cache: cache.folder, shard: options.shard)
    run.header = header
    if interrupted {
      try run.write(to: options.outFolder + "/" + runFile, finished: false)
      return EvaluationOutcome(
        status: .interrupted, summary: nil,
        problems: [
          Diagnostic(
            "interrupted (\(Interrupts.signalName)): \(log.finishedCount) of \(sessions.count * points.all.count) sessions are in \(WorkbenchHome.display(options.outFolder + "/" + sessionsFile))",
            help: "run the same command with --resume to go on")
        ], sessionsRun: log.appendedCount, measured: counts.measured)
    }
    let records = try log.complete()
    let summary = EvaluationSummary.make(header, records: records)
    try write(summary: summary, records: records, header: header, to: options.outFolder)
    run.finishedAt = Date()
    try run.write(to: options.outFolder + "/" + runFile, finished: true)
    return EvaluationOutcome(
      status: .passed, summary: summary, sessionsRun: log.appendedCount, measured: counts.measured,
      frames: counts.frames)
  }

  /// Evaluates every session at every point the log does not hold yet;
  /// true when interrupted.
  static func evaluate(
    _ sessions: [CorpusSession], at points: [SettingsPoint], with evaluator: SessionEvaluator, into log: SessionLog,
    skipping earlier: SessionLog? = nil, finished: () -> Void
  ) throws(WorkbenchError) -> Bool {
    for session in sessions {
      for (index, point) in points.enumerated()
      where !log.isFinished(session.id, point: index) && earlier?.isFinished(session.id, point: index) != true {
        if Interrupts.pending { return true }
        let record = evaluator.evaluate(session, at: point)
        if record.reason == "interrupted" || Interrupts.pending { return true }
        try log.append(record)
        finished()
      }
    }
    return false
  }

  /// A worker's share: the sessions at its positions that the out folder's
  /// sessions file does not hold, into its part file, then its counts.
  private static func runWorker(
    _ worker: (index: Int, count: Int), sessions: [CorpusSession], points: [SettingsPoint],
    options: EvaluationOptions, evaluator: SessionEvaluator
  ) throws(WorkbenchError) -> EvaluationOutcome {
    let share = sessions.enumerated().filter { $0.offset % worker.count == worker.index - 1 }.map(\.element)
    let done = try SessionLog(
      path: options.outFolder + "/" + sessionsFile, resume: true, readOnly: true, points: points)
    let part = try SessionLog(path: WorkerPool.partPath(options.outFolder, worker.index), resume: false, points: points)
    let interrupted = try evaluate(share, at: points, with: evaluator, into: part, skipping: done, finished: {})
    try evaluator.counts.write(to: WorkerPool.countsPath(options.outFolder, worker.index))
    return EvaluationOutcome(
      status: interrupted ? .interrupted : .passed, summary: nil, sessionsRun: part.appendedCount,
      measured: evaluator.counts.measured)
  }

  /// Writes the summary, the report and the sorted sessions, each whole.
  static func write(summary: JSONValue, records: [SessionRecord], header: SummaryHeader, to folder: String)
    throws(WorkbenchError)
  {
    try writeFile(folder + "/" + summaryFile, summary.prettyText)
    let page = EvaluationReport.html(
      summary: summary.objectValue ?? JSONObject(), sessions: records.compactMap(\.jsonValue.objectValue),
      options: EvaluationReport.Options(
        title: "Evaluation of \(header.flow)",
        sessionLinks: sessionLinks(summary: summary, records: records, folder: folder)))
    try writeFile(folder + "/" + reportFile, page)
  }

  /// Session id → its report page (`--keep-events`), for the point the
  /// page shows first: the chosen one, else the first.
  static func sessionLinks(summary: JSONValue, records: [SessionRecord], folder: String) -> [String: String] {
    let shown = summary["chosen"]?.integerValue.map(Int.init) ?? 0
    let settings = summary["points"]?.arrayValue?[safe: shown]?["settings"]?.objectValue ?? JSONObject()
    var links: [String: String] = [:]
    for record in records where record.settings == settings {
      let page = SessionEvaluator.keptFolder(id: record.id, point: shown) + "/report.html"
      if FileManager.default.fileExists(atPath: folder + "/" + page) { links[record.id] = page }
    }
    return links
  }

  static func writeFile(_ path: String, _ text: String) throws(WorkbenchError) {
    do {
      try AtomicFile.write(Array(text.utf8), to: path)
    } catch {
      throw WorkbenchError(.usage, "cannot write: \(error)", at: SourceLocation(file: path))
    }
  }

  /// The cache's default: `.workbench-cache` in the manifest's folder, or in the corpus folder;
  /// where that folder cannot be written (an installed package's examples), the same folder's
  /// path under the user's cache folder (`$XDG_CACHE_HOME/workbench/eval`), so that two corpora
  /// never share a cache by accident.
  static func defaultCache(
    for corpus: String, environment: [String: String] = ProcessInfo.processInfo.environment,
    canWrite: (String) -> Bool = { access($0, W_OK) == 0 }
  ) -> String {
    var isFolder: ObjCBool = false
    let isCorpusFolder = FileManager.default.fileExists(atPath: corpus, isDirectory: &isFolder) && isFolder.boolValue
    let named = isCorpusFolder ? corpus : (corpus as NSString).deletingLastPathComponent
    let folder = named.isEmpty ? "." : named
    if canWrite(folder) { return folder + "/.workbench-cache" }
    let absolute =
      folder.hasPrefix("/") ? folder : FileManager.default.currentDirectoryPath + "/" + folder
    let cacheRoot = WorkbenchHome.userFolder("XDG_CACHE_HOME", orUnderHome: ".cache", environment: environment)
    return cacheRoot + "/eval" + (absolute as NSString).standardizingPath
  }

  static func makeFolder(_ path: String) throws(WorkbenchError) {
    do {
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    } catch {
      throw WorkbenchError(
        .usage, "cannot make the output folder", at: SourceLocation(file: path, key: "--out"),
        help: "give a folder that can be written")
    }
  }

  /// Every settings point, each checked by loading the flow with it: a
  /// bad value stops the evaluation before anything runs.
  static func settingsPoints(_ options: EvaluationOptions, logger: Logger) throws(WorkbenchError) -> (
    all: [SettingsPoint], flowName: String, declaresScore: Bool
  ) {
    var points: [SettingsPoint] = []
    var flowName = ""
    var declaresScore = false
    for values in options.grid.points {
      var flowOptions = options.flow
      flowOptions.assignments += values.map { SettingText.assignment($0.key, $0.value) }
      let flow = try FlowLoader.load(flowOptions, logger: logger)
      flowName = flow.description.name
      declaresScore = flow.description.hasScore
      let estimatorSettings = RunSettings.estimatorDeclarations.map(\.key).sorted().map {
        "\($0)=\(flow.settings[$0]?.description ?? "")"
      }
      let needs = flow.needs.map { Array(Set($0)).sorted().joined(separator: ",") } ?? "*"
      let plugins = ((try? FileManager.default.contentsOfDirectory(atPath: flow.home.nativePlugins)) ?? []).sorted()
      let recipe =
        ["workbench \(WorkbenchVersion.current)", "needs \(needs)", "plugins \(plugins.joined(separator: ","))"]
        + estimatorSettings + modelDigests(flow.settings.strings("pad.model") ?? [])
      var point = SettingsPoint(
        settings: JSONObject(values.map { ($0.key, $0.value) }), assignments: flowOptions.assignments, recipe: recipe)
      point.comparesFaces = flow.declaredNeeds.contains("face.descriptor")
      point.index = points.count
      points.append(point)
    }
    return (points, flowName, declaresScore)
  }
}

extension Evaluation {
  /// The bytes of each presentation-attack model, as SHA-256: a model
  /// replaced under the same name measures anew.
  static func modelDigests(_ paths: [String]) -> [String] {
    paths.filter { !$0.isEmpty }.map { path in
      guard let handle = FileHandle(forReadingAtPath: path) else { return "model \(path): unreadable" }
      defer { try? handle.close() }
      var hash = SHA256()
      do {
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hash.update(data: chunk) }
      } catch {
        // Part of a file is not its bytes: the same name of a file that reads again is measured again.
        return "model \(path): unreadable"
      }
      return "model \(path): " + hash.finalize().map { String(format: "%02x", $0) }.joined()
    }
  }
}

extension Array {
  subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
