import Analytics
import Diagnostics
import Flows
import Foundation
import Licensing
import Logging
import Reporting
import Session
import Settings

/// What `run --report` and `run --analytics` add to a run: the files the
/// report is made from, and the analytics sinks.
public final class RunExtras {
  private let reportFolder: String?
  private var eventsPath: String?
  private var tracePath: String?
  private var scratch: String?
  private var imageFolders = ["."]
  private var analytics: AnalyticsEventSink?
  private var reportEvents: JSONLinesEventSink?
  private var problems: [Diagnostic] = []

  /// Prepares the outputs; `options` gets a trace output when the report
  /// needs one the user did not ask for.
  /// `sessionId` is the host application's for the analytics trace (a new
  /// UUID when nil).
  public init(
    report: String?, analytics specs: [String], sessionId: String? = nil, options: inout RunOptions,
    settingsDirectory: String?
  ) throws(WorkbenchError) {
    reportFolder = report
    if report != nil {
      let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "workbench-report-\(UUID().uuidString)"
      ).path
      do {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      } catch {
        throw WorkbenchError(.usage, "cannot make a scratch folder for the report: \(error.localizedDescription)")
      }
      scratch = folder
      // The report reads the run's own events file when there is one; otherwise a copy here.
      if let own = options.eventsPath, own != "-" {
        eventsPath = own
      } else {
        eventsPath = folder + "/events.jsonl"
        reportEvents = try JSONLinesEventSink(path: folder + "/events.jsonl")
      }
      if options.traceOutPath == nil { options.traceOutPath = folder + "/trace.jsonl" }
      tracePath = options.traceOutPath
      if let artifacts = options.artifactsPath { imageFolders.append(artifacts) }
    }
    if !specs.isEmpty {
      let home = try WorkbenchHome.locate()
      for problem in AnalyticsSinkPlugins.load(directory: home.nativePlugins) {
        FileHandle.standardError.write(Data("workbench: warning: \(TerminalText.escaped(problem))\n".utf8))
      }
      var sinks: [any AnalyticsSink] = []
      for spec in specs { sinks.append(try AnalyticsSinks.make(spec)) }
      analytics = AnalyticsEventSink(
        sinks: sinks, mapping: try RunAnalytics.mapping(home: home, settingsDirectory: settingsDirectory),
        kind: "other", deviceIdentifier: MachineFingerprint.current().value, sessionId: sessionId)
    }
  }

  public func install(into session: RunSession) {
    if let reportEvents { session.addEventSink(reportEvents) }
    if let analytics { RunAnalytics.install(analytics, into: session) }
  }

  /// Writes the report; returns lines for the user (where the report is,
  /// what the analytics sinks did), and logs problems.
  public func finish(outcome: RunOutcome, logger: Logger) -> [String] {
    defer { if let scratch { try? FileManager.default.removeItem(atPath: scratch) } }
    var lines: [String] = []
    if let analytics {
      lines += analytics.summaries
    }
    if let reportFolder, let eventsPath, FileManager.default.fileExists(atPath: eventsPath) {
      do {
        let path = try RunReports.write(
          folder: reportFolder, events: eventsPath, trace: tracePath, settings: outcome.settings,
          imageFolders: imageFolders)
        lines.append("report: \(path)")
      } catch {
        for diagnostic in error.diagnostics {
          logger.error(
            "the report could not be written: \(diagnostic.locatedMessage)")
        }
      }
    }
    return lines
  }
}
