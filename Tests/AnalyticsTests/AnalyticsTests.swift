import Analytics
import Foundation
import HTTPTestSupport
import Hummingbird
import JSONCore
import Logging
import NIOCore
import Reporting
import ServiceLifecycle
import TestSupport
import Testing

/// Keeps what a sink was given.
final class CollectingAnalyticsSink: AnalyticsSink {
  var records: [AnalyticsRecord] = []
  func accept(_ record: AnalyticsRecord) { records.append(record) }
  func finish() {}
  var summary: String { "\(records.count)" }
}

private func event(_ type: String, t: Double, _ fields: [(String, JSONValue)] = []) -> Event {
  Event(type: type, t: t, frame: Int64(t * 30), fields: JSONObject(fields))
}

private func mapping() throws -> AnalyticsMapping {
  try AnalyticsMapping.load(path: packageRootPath + "/configs/analytics.json")
}

@Suite("Analytics trace")
struct AnalyticsTraceTests {
  @Test("a card run: INIT, VIEW, START, throttled IN_PROGRESS, FINISH with the failure's code")
  func cardRun() throws {
    let collected = CollectingAnalyticsSink()
    let sink = AnalyticsEventSink(
      sinks: [collected], mapping: try mapping(), kind: "other", deviceIdentifier: "device-1",
      startedAt: Date(timeIntervalSince1970: 1_800_000_000))
    sink.kind = "card"
    sink.emit(event("session", t: 0))
    sink.emit(event("status", t: 0, [("status", "BEGIN")]))  // no code: not sent
    for t in [1.0, 2.0, 5.9, 6.1] {
      sink.emit(event("hint", t: t, [("key", "idcard_operation_title6"), ("text", "Too bright")]))
    }
    sink.emit(event("status", t: 6.2, [("status", "FAR")]))
    sink.emit(event("result", t: 7, [("success", false), ("reason", "exposure"), ("code", 2)]))
    let records = collected.records
    #expect(records.map(\.event) == ["INIT", "VIEW", "START", "IN_PROGRESS", "IN_PROGRESS", "IN_PROGRESS", "FINISH"])
    #expect(records.map(\.category) == ["SDK"] + Array(repeating: "ENROLLMENT", count: 6))
    #expect(records.map(\.page) == [nil] + Array(repeating: "SCAN", count: 6))
    #expect(records.allSatisfy { $0.deviceIdentifier == "device-1" })
    // The glare hint at 1 s and again at 6.1 s (5 s later); not at 2 s or 5.9 s.
    #expect(records[3].statusCode == "SCAN_DOCUMENT_GLARE_DETECTED")
    #expect(records[3].statusMessage == "Too bright")
    #expect(records[3].timestamp == "2027-01-15T08:00:01.000Z")
    #expect(records[4].timestamp == "2027-01-15T08:00:06.100Z")
    #expect(records[5].statusCode == "SCAN_DOCUMENT_INCORRECT_DISTANCE_DETECTED")
    #expect(records[5].statusMessage == nil)
    #expect(records[6].status == "FAILURE")
    #expect(records[6].statusCode == "SCAN_DOCUMENT_GLARE_DETECTED")
    let session = records[0].sessionId
    #expect(records.allSatisfy { $0.sessionId == session })
    #expect(
      session.range(
        of: #"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"#, options: .regularExpression)
        != nil)
  }

  @Test("a face run's end: a failed liveness, a timeout, a cancel, an error, each with FINISH")
  func faceRun() throws {
    for (fields, expected) in [
      ([("success", JSONValue.bool(true)), ("reason", "passed")], ["FINISH:SUCCESS:-"]),
      ([("success", false), ("reason", "interaction_timeout")], ["FINISH:FAILURE:FACE_LIVENESS_FAILED"]),
      ([("success", false), ("reason", "step_failed")], ["FINISH:FAILURE:FACE_LIVENESS_FAILED"]),
      ([("success", false), ("reason", "end_of_input")], ["FINISH:FAILURE:FACE_LIVENESS_FAILED"]),
      ([("success", false), ("reason", "step_timeout")], ["FINISH:FAILURE:FACE_TIMEOUT"]),
      ([("success", false), ("reason", "time_limit")], ["FINISH:FAILURE:FACE_TIMEOUT"]),
      ([("success", false), ("reason", "multiple_faces")], ["FINISH:FAILURE:FACE_MULTIPLE_FACES_DETECTED"]),
      ([("success", false), ("reason", "interrupted")], ["FINISH:FAILURE:USER_CANCEL"]),
      ([("success", false), ("reason", "closed")], ["FINISH:FAILURE:USER_CANCEL"]),
      ([("success", false), ("reason", "camera_lost")], ["FINISH:FAILURE:CAMERA_NOT_AVAILABLE"]),
      ([("success", false), ("reason", "script_error")], ["FINISH:FAILURE:UNEXPECTED_ERROR"]),
    ] as [([(String, JSONValue)], [String])] {
      let collected = CollectingAnalyticsSink()
      let sink = AnalyticsEventSink(sinks: [collected], mapping: try mapping(), kind: "face", deviceIdentifier: "d")
      sink.emit(event("result", t: 3, fields))
      // No session (a flow that did not load): INIT, then FINISH.
      #expect(collected.records.first?.event == "INIT")
      let finish = collected.records.dropFirst()
      #expect(finish.map { "\($0.event):\($0.status):\($0.statusCode ?? "-")" } == expected)
      #expect(finish.allSatisfy { $0.category == "FACE_SESSION" && $0.page == "FACE" })
    }
  }

  @Test("the time limit: FACE_TIMEOUT on the face page, SESSION_EXPIRED on the others")
  func timeLimit() throws {
    for (kind, code) in [("face", "FACE_TIMEOUT"), ("card", "SESSION_EXPIRED"), ("other", "SESSION_EXPIRED")] {
      let collected = CollectingAnalyticsSink()
      let sink = AnalyticsEventSink(sinks: [collected], mapping: try mapping(), kind: kind, deviceIdentifier: "d")
      sink.emit(event("result", t: 20, [("success", false), ("reason", "time_limit")]))
      #expect(collected.records.last?.statusCode == code, "\(kind)")
    }
  }

  /// A run of three steps that ends during the second one.
  private func threeSteps(_ ending: [Event], document flow: String = "hkid-2018") throws -> [AnalyticsRecord] {
    let collected = CollectingAnalyticsSink()
    let sink = AnalyticsEventSink(sinks: [collected], mapping: try mapping(), kind: "card", deviceIdentifier: "d")
    sink.emit(event("session", t: 0, [("flow", .string(flow)), ("order", ["a", "b", "c"])]))
    sink.emit(event("step", t: 0, [("name", "a"), ("index", 1), ("of", 3), ("state", "started")]))
    sink.emit(event("step", t: 1, [("name", "a"), ("index", 1), ("of", 3), ("state", "passed")]))
    sink.emit(event("step", t: 1, [("name", "b"), ("index", 2), ("of", 3), ("state", "started")]))
    for event in ending { sink.emit(event) }
    try sink.finish()
    return collected.records
  }

  private func summary(_ records: [AnalyticsRecord]) -> [String] {
    records.map { "\($0.event):\($0.status):\($0.statusCode ?? "-")" }
  }

  @Test("COMPLETE for each step that ends, SKIP for each step never started, then FINISH")
  func steps() throws {
    let failed = try threeSteps([
      event("step", t: 2, [("name", "b"), ("index", 2), ("of", 3), ("state", "failed"), ("reason", "lost")]),
      event(
        "result", t: 2,
        [("success", false), ("reason", "lost"), ("code", 3), ("message", "The card was lost"), ("steps", 3)]),
    ])
    #expect(
      summary(failed) == [
        "INIT:SUCCESS:-", "VIEW:SUCCESS:-", "START:SUCCESS:-", "COMPLETE:SUCCESS:-",
        "COMPLETE:FAILURE:SCAN_DOCUMENT_LOST", "SKIP:FAILURE:-", "FINISH:FAILURE:SCAN_DOCUMENT_LOST",
      ])
    // The step's failure takes the text of the result that follows it on the same frame.
    #expect(failed[4].statusMessage == "The card was lost")
    #expect(failed[6].statusMessage == "The card was lost")
    #expect(failed[3].statusMessage == nil)
    // The document type of the flow, on every record but INIT (the SDK's).
    #expect(failed[0].documentType == nil && failed[0].page == nil)
    #expect(failed.dropFirst().allSatisfy { $0.documentType == "HKG_ID_2018" })

    // Ctrl-C: no failed step event; the step still running gets COMPLETE, and the run FINISH.
    let interrupted = try threeSteps(
      [event("result", t: 1.5, [("success", false), ("reason", "interrupted"), ("message", "interrupted (SIGINT)")])],
      document: "liveness")
    #expect(
      summary(interrupted).suffix(3) == [
        "COMPLETE:FAILURE:USER_CANCEL", "SKIP:FAILURE:-", "FINISH:FAILURE:USER_CANCEL",
      ])
    #expect(interrupted.last?.statusMessage == "interrupted (SIGINT)")
    #expect(interrupted.allSatisfy { $0.documentType == nil })
  }

  @Test("a status takes the text of the hint raised with it; the document sides are never throttled")
  func messagesAndSides() throws {
    let collected = CollectingAnalyticsSink()
    let sink = AnalyticsEventSink(
      sinks: [collected], mapping: try mapping(), kind: "card", deviceIdentifier: "d",
      sessionId: "3F2B8C1E-5D4A-4E6F-9A7B-1C2D3E4F5A6B")
    sink.emit(event("session", t: 0, [("flow", "hkid-2003")]))
    sink.emit(event("status", t: 0.5, [("status", "NEAR")]))
    sink.emit(event("hint", t: 0.5, [("key", "idcard_operation_title14"), ("text", "太近")]))
    for t in [1.0, 2.0] {
      sink.emit(event("intermediate", t: t, [("reason", "first"), ("message", "First motion recognised")]))
      sink.emit(event("capture", t: t, [("name", "second")]))
    }
    sink.emit(event("result", t: 3, [("success", true), ("reason", "passed"), ("message", "Done")]))
    let records = collected.records.filter { $0.event == "IN_PROGRESS" }
    #expect(
      records.map(\.statusCode) == [
        "SCAN_DOCUMENT_INCORRECT_DISTANCE_DETECTED", "SCAN_DOCUMENT_FRONT_PROCESSED", "SCAN_DOCUMENT_BACK_PROCESSED",
        "SCAN_DOCUMENT_FRONT_PROCESSED", "SCAN_DOCUMENT_BACK_PROCESSED",
      ])
    #expect(records.map(\.statusMessage) == ["太近", "First motion recognised", nil, "First motion recognised", nil])
    // The host application's session id, as given.
    #expect(collected.records.allSatisfy { $0.sessionId == "3F2B8C1E-5D4A-4E6F-9A7B-1C2D3E4F5A6B" })
    #expect(collected.records.last.map { [$0.event, $0.status] } == ["FINISH", "SUCCESS"])
    #expect(collected.records.last?.statusMessage == nil)
    #expect(collected.records.last?.documentType == "HKG_ID_2003")
    #expect(AnalyticsEventSink.isSessionId("3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b"))
    #expect(!AnalyticsEventSink.isSessionId("not-a-uuid"))
  }

  @Test("every code of the bundled mapping is Uqudo's, or an addition docs/analytics.md lists with its reason")
  func codesAreUqudosOrDocumented() throws {
    let uqudo = Set(UqudoStatusCodes.all)
    #expect(uqudo.count == UqudoStatusCodes.all.count && uqudo.count == 52)
    #expect(UqudoStatusCodes.unthrottled.isSubset(of: uqudo))
    #expect(uqudo.contains("FACE_MULTIPLE_FACES_DETECTED"), "Uqudo lists it among its face codes")
    let additions = try documentedAdditions()
    #expect(!additions.isEmpty)
    for (code, reason) in additions {
      #expect(!uqudo.contains(code), "\(code) is Uqudo's: it is no addition")
      #expect(reason.count > 20, "\(code) needs its reason")
    }
    let codes = try mapping().allCodes
    for code in codes {
      #expect(uqudo.contains(code) || additions[code] != nil, "\(code) is neither Uqudo's nor in docs/analytics.md")
    }
    // The list has no additions the mapping no longer gives.
    for code in additions.keys { #expect(codes.contains(code), "\(code) is listed but never given") }
    #expect(try mapping().unthrottled == UqudoStatusCodes.unthrottled)
  }

  /// The codes of the table under "## Codes workbench adds" in docs/analytics.md, with their reasons.
  private func documentedAdditions() throws -> [String: String] {
    let text = try String(contentsOfFile: packageRootPath + "/docs/analytics.md", encoding: .utf8)
    guard let section = text.components(separatedBy: "## Codes workbench adds").dropFirst().first else { return [:] }
    var additions: [String: String] = [:]
    for line in section.components(separatedBy: "\n## ").first?.split(separator: "\n") ?? [] {
      let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      guard cells.count >= 4, cells[1].hasPrefix("`"), cells[1].hasSuffix("`") else { continue }
      additions[String(cells[1].dropFirst().dropLast())] = cells[cells.count - 2]
    }
    return additions
  }

  @Test("the mapping file: a wrong entry is named; the old prefixes are refused with help")
  func mappingErrors() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = try folder.write(
      "analytics.json",
      #"{"card": {"category": "X"}, "codes": {"SCAN": {"FAR": 3}, "FACE": "FACE_"}, "prefixes": {"SCAN": "SCAN_"}}"#)
    do {
      _ = try AnalyticsMapping.load(path: path)
      Issue.record("loaded")
    } catch {
      let text = "\(error)"
      #expect(text.contains("'card' needs \"category\" and \"page\" strings"), "\(text)")
      #expect(text.contains("codes.SCAN.FAR"), "\(text)")
      #expect(text.contains("codes.FACE"), "\(text)")
      #expect(text.contains("status codes are no longer made of a prefix and a code"), "\(text)")
    }
    let own = try folder.write(
      "own.json", #"{"codes": {"any": {"result.closed": "USER_CANCEL"}, "FACE": {"result.closed": "MINE"}}}"#)
    let loaded = try AnalyticsMapping.load(path: own)
    #expect(loaded.code("result.closed", page: "FACE") == "MINE")
    #expect(loaded.code("result.closed", page: "SCAN") == "USER_CANCEL")
    #expect(loaded.code("result.closed", page: nil) == "USER_CANCEL")
  }

  @Test("the JSON Lines sink writes one record per line, complete")
  func fileSink() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("trace.jsonl")
    let file = try AnalyticsSinks.make(path)
    let sink = AnalyticsEventSink(sinks: [file], mapping: try mapping(), kind: "face", deviceIdentifier: "d")
    sink.emit(event("session", t: 0))
    sink.emit(event("hint", t: 0.5, [("key", "face.multiple"), ("text", "Only one face, please")]))
    try sink.finish()
    let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
    #expect(lines.count == 4)
    let record = try JSONParser.parse(String(lines[3]))
    #expect(
      record.objectValue?.keys == [
        "sessionId", "deviceIdentifier", "category", "event", "status", "page", "statusCode", "statusMessage",
        "documentType", "timestamp",
      ])
    #expect(record["statusCode"] == "FACE_MULTIPLE_FACES_DETECTED")
    #expect(record["statusMessage"] == "Only one face, please")
    #expect(record["documentType"] == .null)
    #expect(try JSONParser.parse(String(lines[0]))["page"] == .null)
  }
}

/// Collects what an HTTP endpoint on loopback receives.
final class ReceivedBodies: @unchecked Sendable {
  private let lock = NSLock()
  private var bodies: [String] = []
  func add(_ body: String) {
    lock.lock()
    bodies.append(body)
    lock.unlock()
  }
  var all: [String] {
    lock.lock()
    defer { lock.unlock() }
    return bodies
  }
}

private func withCollector<T: Sendable>(
  _ received: ReceivedBodies, _ run: @Sendable (Int) async throws -> T
) async throws -> T {
  try await withLoopbackServer(
    respond: { request in
      received.add(String(buffer: try await request.body.collect(upTo: 1 << 20)))
      return Response(status: .ok)
    }, run)
}

@Suite("Analytics over HTTP")
struct HTTPAnalyticsTests {
  private func record(_ index: Int) -> AnalyticsRecord {
    AnalyticsRecord(
      sessionId: "s", deviceIdentifier: "d", category: "FACE_SESSION", event: "IN_PROGRESS", status: "SUCCESS",
      page: "FACE", statusCode: "FACE_\(index)", timestamp: "2026-01-01T00:00:00.000Z")
  }

  @Test("records arrive in batches, all of them, in order")
  func batches() async throws {
    let received = ReceivedBodies()
    let counts = try await withCollector(received) { port in
      // Generous limits: the suite runs many tests at once and the endpoint may answer slowly.
      let sink = try HTTPAnalyticsSink(
        url: "http://127.0.0.1:\(port)/v1/traces", batchSize: 50, flushInterval: 0.2, finishTimeout: 120,
        postTimeout: 60)
      for index in 0..<120 { sink.accept(record(index)) }
      try sink.finish()
      return sink.counts
    }
    #expect(counts.sent == 120 && counts.dropped == 0 && counts.failedPosts == 0, "\(counts)")
    let bodies = received.all
    #expect(bodies.count >= 3, "\(bodies.count) posts")
    let codes = try bodies.flatMap { body in
      try #require(try JSONParser.parse(body)["records"]?.arrayValue).compactMap { $0["statusCode"]?.stringValue }
    }
    #expect(codes == (0..<120).map { "FACE_\($0)" })
  }

  @Test("with the endpoint down, the buffer stays bounded and what cannot be sent is counted as dropped")
  func bounded() throws {
    // A port nobody listens on: every post fails at once.
    let sink = try HTTPAnalyticsSink(
      url: "http://127.0.0.1:9/v1/traces", batchSize: 5, capacity: 10, flushInterval: 0.05, finishTimeout: 5)
    for index in 0..<100 { sink.accept(record(index)) }
    try sink.finish()
    let counts = sink.counts
    #expect(counts.sent == 0)
    #expect(counts.dropped == 100, "\(counts)")
    #expect(counts.failedPosts >= 1)
    #expect(sink.summary.contains("100 dropped"))
  }

  @Test("a URL that is not http(s) is refused; anything else is a file")
  func kinds() throws {
    #expect(throws: (any Error).self) { try HTTPAnalyticsSink(url: "ftp://example/x") }
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let sink = try AnalyticsSinks.make("file:" + folder.file("a.jsonl"))
    #expect(sink is JSONLinesAnalyticsSink)
  }
}
