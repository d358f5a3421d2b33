import Analytics
import Diagnostics
import Foundation
import JSONCore
import Licensing
import Session
import Settings

/// The analytics trace of a run (docs/analytics.md): its mapping, and the
/// sink that follows what the flow reads.
public enum RunAnalytics {
  /// The mapping of the settings folder: `analytics.json` of
  /// `--settings-dir` when it has one, else the bundled one.
  public static func mapping(home: WorkbenchHome, settingsDirectory: String?) throws(WorkbenchError)
    -> AnalyticsMapping
  {
    let folder = try SettingsFolder.make(home: home, settingsDirectory: settingsDirectory)
    return try folder.checkedJSONFile("analytics.json").map { (path) throws(WorkbenchError) in
      try AnalyticsMapping.load(path: path)
    } ?? AnalyticsMapping()
  }

  /// Adds `analytics` to `session`; once the flow is loaded, its records are
  /// on the page of what the flow reads (card, face, other).
  public static func install(_ analytics: AnalyticsEventSink, into session: RunSession) {
    session.addEventSink(analytics)
    let before = session.onFlowLoaded
    session.onFlowLoaded = { flow, features in
      before?(flow, features)
      analytics.kind = features.contains("card") ? "card" : features.contains("face") ? "face" : "other"
    }
  }

  /// Keeps the analytics trace of `session` in memory (the bundled
  /// mapping), for what a QA scenario expects of it.
  public static func collect(into session: RunSession) throws(WorkbenchError) -> CollectedAnalytics {
    let collected = CollectedAnalytics()
    let sink = AnalyticsEventSink(
      sinks: [collected], mapping: try mapping(home: try WorkbenchHome.locate(), settingsDirectory: nil),
      kind: "other", deviceIdentifier: MachineFingerprint.current().value)
    install(sink, into: session)
    return collected
  }
}

/// A run's analytics records, as the JSON objects a sink gets.
public final class CollectedAnalytics: AnalyticsSink {
  public private(set) var records: [JSONValue] = []

  public func accept(_ record: AnalyticsRecord) { records.append(record.json) }
  public func finish() throws(WorkbenchError) {}
  public var summary: String { "analytics: \(records.count) records kept" }
}
