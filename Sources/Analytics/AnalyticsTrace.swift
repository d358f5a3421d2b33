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
  /// SCAN, FACE, ...; nil for INIT, as in Uqudo's trace.
  public var page: String?
  /// Such as SCAN_DOCUMENT_GLARE_DETECTED or FACE_TIMEOUT; nil when there is none.
  public var statusCode: String?
  /// What the status code means, in the run's language: the text of the
  /// hint, intermediate result or result it comes from; nil when there is none.
  public var statusMessage: String?
  /// The document the flow checks, such as HKG_ID_2018; nil for INIT and
  /// for flows that check none.
  public var documentType: String?
  /// ISO 8601 UTC with milliseconds.
  public var timestamp: String

  public init(
    sessionId: String, deviceIdentifier: String, category: String, event: String, status: String, page: String?,
    statusCode: String?, statusMessage: String? = nil, documentType: String? = nil, timestamp: String
  ) {
    self.sessionId = sessionId
    self.deviceIdentifier = deviceIdentifier
    self.category = category
    self.event = event
    self.status = status
    self.page = page
    self.statusCode = statusCode
    self.statusMessage = statusMessage
    self.documentType = documentType
    self.timestamp = timestamp
  }

  public var json: JSONValue {
    func text(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
    return .object(
      JSONObject([
        ("sessionId", .string(sessionId)), ("deviceIdentifier", .string(deviceIdentifier)),
        ("category", .string(category)), ("event", .string(event)), ("status", .string(status)),
        ("page", text(page)), ("statusCode", text(statusCode)), ("statusMessage", text(statusMessage)),
        ("documentType", text(documentType)), ("timestamp", .string(timestamp)),
      ]))
  }
}

/// How the run's events become analytics records: which category and page
/// a flow is, its document type, and the status code of each hint, status,
/// capture and result on each page (`configs/analytics.json`, replaceable
/// with --settings-dir).
public struct AnalyticsMapping: Sendable {
  /// Category and page of flows that read card measurements, face
  /// measurements, or neither.
  public var card: (category: String, page: String) = ("ENROLLMENT", "SCAN")
  public var face: (category: String, page: String) = ("FACE_SESSION", "FACE")
  public var other: (category: String, page: String) = ("SDK", "SDK")
  /// Per page (SCAN, FACE, ...): hint keys, statuses, `intermediate.<reason>`,
  /// `capture.<name>` and `result.<reason>` → the whole status code. The
  /// codes under ``everyPage`` hold on every page that has none of its own
  /// for that key.
  public var codes: [String: [String: String]] = [:]
  /// The name in `codes` of the codes of every page.
  public static let everyPage = "any"
  /// Identical IN_PROGRESS records closer together than this are dropped.
  public var throttleSeconds = 5.0
  /// IN_PROGRESS codes that are never dropped: Uqudo's document sides.
  public var unthrottled: Set<String> = UqudoStatusCodes.unthrottled
  /// A status or hint key after which the trace is on another kind's page
  /// ("card", "face", "other"): a flow that scans a card, then the face
  /// (`"CARD_COMPLETE": "face"`), reports the face part on the FACE page.
  public var switches: [String: String] = [:]
  /// The document type of a flow, by the flow's name (`hkid-2018` →
  /// `HKG_ID_2018`); a flow not listed has none.
  public var documentTypes: [String: String] = [:]

  public init() {}

  /// The status code of `key` on `page`: the page's own, else every page's.
  public func code(_ key: String, page: String?) -> String? {
    if let page, let code = codes[page]?[key] { return code }
    return codes[AnalyticsMapping.everyPage]?[key]
  }

  /// Every status code the mapping can give, sorted.
  public var allCodes: [String] { Set(codes.values.flatMap(\.values)).sorted() }

  /// The mapping of a JSON file: `{ "card": {"category","page"}, "face": ..., "other": ...,
  /// "codes": {page: {key: code}}, "document_types": {flow: type}, "unthrottled": [code],
  /// "switch": {key: kind}, "throttle_seconds": 5 }`.
  public static func load(path: String) throws(WorkbenchError) -> AnalyticsMapping {
    let value = try JSONFile.document(path, what: "analytics mapping")
    var mapping = AnalyticsMapping()
    var problems: [Diagnostic] = []
    func problem(_ key: String, _ message: String, help: String? = nil) {
      problems.append(Diagnostic(message, at: SourceLocation(file: path, key: key), help: help))
    }
    func pair(_ key: String) -> (String, String)? {
      guard let object = value[key]?.objectValue else { return nil }
      guard let category = object["category"]?.stringValue, let page = object["page"]?.stringValue else {
        problem(key, "'\(key)' needs \"category\" and \"page\" strings")
        return nil
      }
      return (category, page)
    }
    if let card = pair("card") { mapping.card = card }
    if let face = pair("face") { mapping.face = face }
    if let other = pair("other") { mapping.other = other }
    let perPage =
      #"give each page its codes in full: "codes": {"SCAN": {"FAR": "SCAN_DOCUMENT_INCORRECT_DISTANCE_DETECTED"}, "any": {...}}"#
    if value["prefixes"] != nil {
      problem("prefixes", "status codes are no longer made of a prefix and a code", help: perPage)
    }
    for (page, table) in value["codes"]?.objectValue ?? JSONObject() {
      guard let table = table.objectValue else {
        problem("codes." + page, "the codes of a page are a table of keys and status codes", help: perPage)
        continue
      }
      for (key, code) in table {
        guard let code = code.stringValue, !code.isEmpty else {
          problem("codes.\(page).\(key)", "a status code must be a string")
          continue
        }
        mapping.codes[page, default: [:]][key] = code
      }
    }
    if let list = value["unthrottled"] {
      if let codes = list.arrayValue?.compactMap(\.stringValue), codes.count == list.arrayValue?.count {
        mapping.unthrottled = Set(codes)
      } else {
        problem("unthrottled", "unthrottled takes a list of status codes")
      }
    }
    for (flow, type) in value["document_types"]?.objectValue ?? JSONObject() {
      guard let type = type.stringValue else {
        problem("document_types." + flow, "a document type must be a string")
        continue
      }
      mapping.documentTypes[flow] = type
    }
    for (key, kind) in value["switch"]?.objectValue ?? JSONObject() {
      guard let kind = kind.stringValue, ["card", "face", "other"].contains(kind) else {
        problem("switch." + key, "a page switch names \"card\", \"face\" or \"other\"")
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
/// hands them to analytics sinks (docs/analytics.md).
public final class AnalyticsEventSink: EventSink {
  private let mapping: AnalyticsMapping
  private let sinks: [any AnalyticsSink]
  private let sessionId: String
  private let deviceIdentifier: String
  private let startedAt: Date
  private var category: String
  private var page: String
  private var documentType: String?
  private var initialized = false
  /// How many steps the run has, the highest one started, and the one
  /// started and not yet ended.
  private var steps = 0
  private var reached = 0
  private var running: Int?
  private var lastInProgress: [String: Double] = [:]
  /// A record made from an event without text (a status, a capture, a
  /// failed step), held back for one event: when the next event is of the
  /// same frame, has text and the same status code (the hint an alert
  /// raises with its status, the result after the step that failed), its
  /// text becomes the record's status message.
  private var held: (record: AnalyticsRecord, t: Double, frame: Int64)?
  private let formatter: ISO8601DateFormatter

  /// What the flow measures ("card", "face", anything else), once known:
  /// it decides the category and the page of the records that follow.
  public var kind: String {
    didSet { (category, page) = AnalyticsEventSink.categoryAndPage(kind, mapping) }
  }

  static func categoryAndPage(_ kind: String, _ mapping: AnalyticsMapping) -> (String, String) {
    kind == "card" ? mapping.card : kind == "face" ? mapping.face : mapping.other
  }

  /// `kind` says what the flow reads ("card", "face" or anything else);
  /// `sessionId` is the host application's, or a new UUID (version 4);
  /// `startedAt` is the wall time of the input's t = 0.
  public init(
    sinks: [any AnalyticsSink], mapping: AnalyticsMapping, kind: String, deviceIdentifier: String,
    sessionId: String? = nil, startedAt: Date = Date()
  ) {
    self.sinks = sinks
    self.mapping = mapping
    self.sessionId = sessionId ?? UUID().uuidString.lowercased()
    self.deviceIdentifier = deviceIdentifier
    self.startedAt = startedAt
    self.kind = kind
    (category, page) = AnalyticsEventSink.categoryAndPage(kind, mapping)
    formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
  }

  /// Whether `text` can be a session id: a UUID, such as
  /// `3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b` (any case).
  public static func isSessionId(_ text: String) -> Bool { UUID(uuidString: text) != nil }

  public func emit(_ event: Event) {
    if let waiting = held {
      held = nil
      var record = waiting.record
      if event.t == waiting.t, event.frame == waiting.frame, let text = AnalyticsEventSink.text(of: event),
        statusCode(of: event) == record.statusCode
      {
        record.statusMessage = text
      }
      deliver(record)
    }
    switch event.type {
    case "session": begin(event)
    case "hint", "status", "intermediate", "capture": progress(event)
    case "step": step(event)
    case "result": end(event)
    default: return
    }
  }

  public func finish() throws(WorkbenchError) {
    if let waiting = held {
      held = nil
      deliver(waiting.record)
    }
    var problems: [Diagnostic] = []
    for sink in sinks {
      do { try sink.finish() } catch { problems += error.diagnostics }
    }
    if !problems.isEmpty { throw WorkbenchError(.usage, problems) }
  }

  public var summaries: [String] { sinks.map(\.summary) }

  // MARK: Events to records

  /// INIT (the SDK's: no page, no document), then VIEW and START.
  private func begin(_ event: Event) {
    documentType = event["flow"]?.stringValue.flatMap { mapping.documentTypes[$0] }
    steps = event["order"]?.arrayValue?.count ?? 0
    reached = 0
    running = nil
    lastInProgress = [:]
    initialize(t: event.t)
    deliver(record("VIEW", t: event.t))
    deliver(record("START", t: event.t))
  }

  private func initialize(t: Double) {
    initialized = true
    var record = record("INIT", t: t)
    (record.category, record.page, record.documentType) = ("SDK", nil, nil)
    deliver(record)
  }

  /// IN_PROGRESS for a hint, status, intermediate result or capture that
  /// has a code on this page, unless the same code went out less than the
  /// throttle ago.
  private func progress(_ event: Event) {
    guard let key = AnalyticsEventSink.key(of: event) else { return }
    if let kind = mapping.switches[key] { self.kind = kind }
    guard let code = mapping.code(key, page: page) else { return }
    if !mapping.unthrottled.contains(code) {
      // The same code again within the throttle window is noise to an analytics backend.
      if let last = lastInProgress[code], event.t - last < mapping.throttleSeconds { return }
      lastInProgress[code] = event.t
    }
    hold(record("IN_PROGRESS", code: code, message: AnalyticsEventSink.text(of: event), t: event.t), event)
  }

  /// COMPLETE for each step that ends: SUCCESS, or FAILURE with the code of
  /// its reason.
  private func step(_ event: Event) {
    guard let index = event["index"]?.integerValue.map(Int.init) else { return }
    if let of = event["of"]?.integerValue { steps = max(steps, Int(of)) }
    switch event["state"]?.stringValue {
    case "started":
      running = index
      reached = max(reached, index)
    case "passed":
      running = nil
      deliver(record("COMPLETE", t: event.t))
    case "failed":
      running = nil
      hold(
        record("COMPLETE", status: "FAILURE", code: failureCode(event["reason"]?.stringValue), t: event.t), event)
    default:
      return
    }
  }

  /// The end of the run: COMPLETE with FAILURE for a step still running (an
  /// interruption, a script error), SKIP for each step never started, then
  /// FINISH.
  private func end(_ event: Event) {
    if !initialized { initialize(t: event.t) }
    let success = event["success"]?.boolValue == true
    let code = success ? nil : failureCode(event["reason"]?.stringValue)
    let message = code == nil ? nil : event["message"]?.stringValue
    if running != nil {
      deliver(record("COMPLETE", status: "FAILURE", code: code, message: message, t: event.t))
      running = nil
    }
    let total = event["steps"]?.integerValue.map(Int.init) ?? steps
    if reached < total {
      for _ in reached..<total { deliver(record("SKIP", status: "FAILURE", t: event.t)) }
      reached = total
    }
    deliver(record("FINISH", status: success ? "SUCCESS" : "FAILURE", code: code, message: message, t: event.t))
  }

  /// The code of a failure's reason on this page, else of `result.failed`.
  private func failureCode(_ reason: String?) -> String? {
    mapping.code("result." + (reason ?? "failed"), page: page) ?? mapping.code("result.failed", page: page)
  }

  /// The mapping key of a hint, status, intermediate result or capture.
  private static func key(of event: Event) -> String? {
    switch event.type {
    case "hint": return event["key"]?.stringValue
    case "status": return event["status"]?.stringValue
    case "intermediate": return event["reason"]?.stringValue.map { "intermediate." + $0 }
    case "capture": return event["name"]?.stringValue.map { "capture." + $0 }
    default: return nil
    }
  }

  /// The localized text an event carries: a hint's, a result's message.
  private static func text(of event: Event) -> String? {
    switch event.type {
    case "hint": return event["text"]?.stringValue
    case "intermediate", "result": return event["message"]?.stringValue
    default: return nil
    }
  }

  /// The status code a record of `event` would have on this page.
  private func statusCode(of event: Event) -> String? {
    switch event.type {
    case "result": return event["success"]?.boolValue == true ? nil : failureCode(event["reason"]?.stringValue)
    case "step": return event["state"] == "failed" ? failureCode(event["reason"]?.stringValue) : nil
    default: return AnalyticsEventSink.key(of: event).flatMap { mapping.code($0, page: page) }
    }
  }

  private func record(
    _ name: String, status: String = "SUCCESS", code: String? = nil, message: String? = nil, t: Double
  ) -> AnalyticsRecord {
    AnalyticsRecord(
      sessionId: sessionId, deviceIdentifier: deviceIdentifier, category: category, event: name, status: status,
      page: page, statusCode: code, statusMessage: code == nil ? nil : message, documentType: documentType,
      timestamp: formatter.string(from: startedAt.addingTimeInterval(t)))
  }

  /// Sends a record now, or, without a message, after the next event.
  private func hold(_ record: AnalyticsRecord, _ event: Event) {
    if record.statusMessage == nil && record.statusCode != nil {
      held = (record, event.t, event.frame)
    } else {
      deliver(record)
    }
  }

  private func deliver(_ record: AnalyticsRecord) {
    for sink in sinks { sink.accept(record) }
  }
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
