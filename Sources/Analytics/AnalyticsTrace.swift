import Diagnostics
import Foundation
import JSONCore
import Reporting

/// One record of the analytics trace, the fields of Uqudo's SDK tracer.
public struct AnalyticsRecord: Sendable, Equatable {
  public var sessionId: String
  public var deviceIdentifier: String
  /// SDK, ENROLLMENT, FACE_SESSION, ...
  public var category: String
  /// INIT, VIEW, START, IN_PROGRESS, COMPLETE, SKIP, FINISH.
  public var event: String
  /// SUCCESS or FAILURE.
  public var status: String
  /// SCAN, FACE, ...
  public var page: String
  /// Such as SCAN_DOCUMENT_GLARE_DETECTED or FACE_TIMEOUT; nil when there is none.
  public var statusCode: String?
  /// ISO 8601 UTC with milliseconds.
  public var timestamp: String

  public init(
    sessionId: String, deviceIdentifier: String, category: String, event: String, status: String, page: String,
    statusCode: String?, timestamp: String
  ) {
    self.sessionId = sessionId
    self.deviceIdentifier = deviceIdentifier
    self.category = category
    self.event = event
    self.status = status
    self.page = page
    self.statusCode = statusCode
    self.timestamp = timestamp
  }

  public var json: JSONValue {
    .object(
      JSONObject([
        ("sessionId", .string(sessionId)), ("deviceIdentifier", .string(deviceIdentifier)),
        ("category", .string(category)), ("event", .string(event)), ("status", .string(status)),
        ("page", .string(page)), ("statusCode", statusCode.map { .string($0) } ?? .null),
        ("timestamp", .string(timestamp)),
      ]))
  }
}

/// How the run's events become analytics records: which category and page
/// a flow is, and the status code of each hint, status and result
/// (`configs/analytics.json`, replaceable with --settings-dir).
public struct AnalyticsMapping: Sendable {
  /// Category and page of flows that read card measurements, face
  /// measurements, or neither.
  public var card: (category: String, page: String) = ("ENROLLMENT", "SCAN")
  public var face: (category: String, page: String) = ("FACE_SESSION", "FACE")
  public var other: (category: String, page: String) = ("SDK", "SDK")
  /// The status code's prefix per page: SCAN → SCAN_DOCUMENT_, FACE → FACE_.
  public var prefixes: [String: String] = ["SCAN": "SCAN_DOCUMENT_", "FACE": "FACE_"]
  /// Hint keys, statuses and result reasons → the code after the prefix.
  public var codes: [String: String] = [:]
  /// Identical IN_PROGRESS records closer together than this are dropped.
  public var throttleSeconds = 5.0
  /// A status or hint key after which the trace is on another kind's page
  /// ("card", "face", "other"): a flow that scans a card, then the face
  /// (`"CARD_COMPLETE": "face"`), reports the face part on the FACE page.
  public var switches: [String: String] = [:]

  public init() {}

  /// The mapping of a JSON file: `{ "card": {"category","page"}, "face": ..., "other": ...,
  /// "prefixes": {page: prefix}, "codes": {key: code}, "throttle_seconds": 5 }`.
  public static func load(path: String) throws(WorkbenchError) -> AnalyticsMapping {
    let value = try JSONFile.document(path, what: "analytics mapping")
    var mapping = AnalyticsMapping()
    var problems: [Diagnostic] = []
    func pair(_ key: String) -> (String, String)? {
      guard let object = value[key]?.objectValue else { return nil }
      guard let category = object["category"]?.stringValue, let page = object["page"]?.stringValue else {
        problems.append(
          Diagnostic(
            "'\(key)' needs \"category\" and \"page\" strings", at: SourceLocation(file: path, key: key)))
        return nil
      }
      return (category, page)
    }
    if let card = pair("card") { mapping.card = card }
    if let face = pair("face") { mapping.face = face }
    if let other = pair("other") { mapping.other = other }
    for (page, prefix) in value["prefixes"]?.objectValue ?? JSONObject() {
      if let prefix = prefix.stringValue { mapping.prefixes[page] = prefix }
    }
    for (key, code) in value["codes"]?.objectValue ?? JSONObject() {
      guard let code = code.stringValue else {
        problems.append(
          Diagnostic("a status code must be a string", at: SourceLocation(file: path, key: "codes." + key)))
        continue
      }
      mapping.codes[key] = code
    }
    for (key, kind) in value["switch"]?.objectValue ?? JSONObject() {
      guard let kind = kind.stringValue, ["card", "face", "other"].contains(kind) else {
        problems.append(
          Diagnostic(
            "a page switch names \"card\", \"face\" or \"other\"", at: SourceLocation(file: path, key: "switch." + key))
        )
        continue
      }
      mapping.switches[key] = kind
    }
    if let seconds = value["throttle_seconds"]?.doubleValue { mapping.throttleSeconds = seconds }
    if !problems.isEmpty { throw WorkbenchError(.usage, problems) }
    return mapping
  }
}

/// Where analytics records go.
public protocol AnalyticsSink: AnyObject {
  /// Must not block: called from the frame loop.
  func accept(_ record: AnalyticsRecord)
  /// Delivers what is left; called once, when the run ends.
  func finish() throws(WorkbenchError)
  /// What happened, for the log (records sent, dropped, failed).
  var summary: String { get }
}

/// An event sink that turns a run's events into analytics records and
/// hands them to analytics sinks.
public final class AnalyticsEventSink: EventSink {
  private let mapping: AnalyticsMapping
  private let sinks: [any AnalyticsSink]
  private let sessionId: String
  private let deviceIdentifier: String
  private let startedAt: Date
  private var category: String
  private var page: String

  /// What the flow measures ("card", "face", anything else), once known:
  /// it decides the category and the page of the records that follow.
  public var kind: String {
    didSet { (category, page) = AnalyticsEventSink.categoryAndPage(kind, mapping) }
  }

  static func categoryAndPage(_ kind: String, _ mapping: AnalyticsMapping) -> (String, String) {
    kind == "card" ? mapping.card : kind == "face" ? mapping.face : mapping.other
  }
  private var lastInProgress: [String: Double] = [:]
  private let formatter: ISO8601DateFormatter

  /// `kind` says what the flow reads ("card", "face" or anything else);
  /// `startedAt` is the wall time of the input's t = 0.
  public init(
    sinks: [any AnalyticsSink], mapping: AnalyticsMapping, kind: String, deviceIdentifier: String,
    sessionId: String = UUID().uuidString.lowercased(), startedAt: Date = Date()
  ) {
    self.sinks = sinks
    self.mapping = mapping
    self.sessionId = sessionId
    self.deviceIdentifier = deviceIdentifier
    self.startedAt = startedAt
    self.kind = kind
    (category, page) = AnalyticsEventSink.categoryAndPage(kind, mapping)
    formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
  }

  private func code(_ key: String) -> String? {
    guard let code = mapping.codes[key] else { return nil }
    return (mapping.prefixes[page] ?? "") + code
  }

  private func send(
    _ event: String, status: String = "SUCCESS", code: String? = nil, t: Double, category: String? = nil
  ) {
    let record = AnalyticsRecord(
      sessionId: sessionId, deviceIdentifier: deviceIdentifier, category: category ?? self.category, event: event,
      status: status, page: page, statusCode: code,
      timestamp: formatter.string(from: startedAt.addingTimeInterval(t)))
    for sink in sinks { sink.accept(record) }
  }

  public func emit(_ event: Event) {
    switch event.type {
    case "session":
      send("INIT", t: event.t, category: "SDK")
      send("VIEW", t: event.t)
      send("START", t: event.t)
    case "hint", "status", "intermediate":
      let key =
        event["key"]?.stringValue ?? event["status"]?.stringValue
        ?? event["reason"]?.stringValue.map { "intermediate." + $0 }
      if let key, let kind = mapping.switches[key] { self.kind = kind }
      guard let key, let statusCode = code(key) else { return }
      // The same code again within the throttle window is noise to an analytics backend.
      if let last = lastInProgress[statusCode], event.t - last < mapping.throttleSeconds { return }
      lastInProgress[statusCode] = event.t
      send("IN_PROGRESS", code: statusCode, t: event.t)
    case "result":
      let reason = event["reason"]?.stringValue ?? "unknown"
      if event["success"]?.boolValue == true {
        send("COMPLETE", code: code("result.passed"), t: event.t)
        send("FINISH", t: event.t)
      } else if reason == "interrupted" {
        send("SKIP", status: "FAILURE", code: code("result.interrupted"), t: event.t)
      } else {
        send("FINISH", status: "FAILURE", code: code("result." + reason) ?? code("result.failed"), t: event.t)
      }
    default:
      return
    }
  }

  public func finish() throws(WorkbenchError) {
    var problems: [Diagnostic] = []
    for sink in sinks {
      do { try sink.finish() } catch { problems += error.diagnostics }
    }
    if !problems.isEmpty { throw WorkbenchError(.usage, problems) }
  }

  public var summaries: [String] { sinks.map(\.summary) }
}

/// Records as JSON Lines in a file, written through a temporary name.
public final class JSONLinesAnalyticsSink: AnalyticsSink {
  private let output: OutputFile
  private var count = 0

  public init(path: String) throws(WorkbenchError) { output = try OutputFile(path: path) }

  public func accept(_ record: AnalyticsRecord) {
    output.write(Array((record.json.jsonText + "\n").utf8))
    count += 1
  }

  public func finish() throws(WorkbenchError) { try output.finish() }

  public var summary: String { "analytics: \(count) records to \(output.path)" }
}
