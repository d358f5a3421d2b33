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
      sink.emit(event("hint", t: t, [("key", "idcard_operation_title6")]))
    }
    sink.emit(event("status", t: 6.2, [("status", "FAR")]))
    sink.emit(event("result", t: 7, [("success", false), ("reason", "exposure"), ("code", 2)]))
    let records = collected.records
    #expect(records.map(\.event) == ["INIT", "VIEW", "START", "IN_PROGRESS", "IN_PROGRESS", "IN_PROGRESS", "FINISH"])
    #expect(records.map(\.category) == ["SDK"] + Array(repeating: "ENROLLMENT", count: 6))
    #expect(records.allSatisfy { $0.page == "SCAN" && $0.deviceIdentifier == "device-1" })
    // The glare hint at 1 s and again at 6.1 s (5 s later); not at 2 s or 5.9 s.
    #expect(records[3].statusCode == "SCAN_DOCUMENT_GLARE_DETECTED")
    #expect(records[3].timestamp == "2027-01-15T08:00:01.000Z")
    #expect(records[4].timestamp == "2027-01-15T08:00:06.100Z")
    #expect(records[5].statusCode == "SCAN_DOCUMENT_TOO_FAR")
    #expect(records[6].status == "FAILURE")
    #expect(records[6].statusCode == "SCAN_DOCUMENT_GLARE_DETECTED")
    let session = records[0].sessionId
    #expect(records.allSatisfy { $0.sessionId == session })
    #expect(
      session.range(
        of: #"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"#, options: .regularExpression)
        != nil)
  }

  @Test("a face run: COMPLETE on success; a timeout is FACE_TIMEOUT; an interruption is SKIP")
  func faceRun() throws {
    for (fields, expected) in [
      (
        [("success", JSONValue.bool(true)), ("reason", "passed")],
        ["COMPLETE:SUCCESS:FACE_SUCCESS", "FINISH:SUCCESS:-"]
      ),
      ([("success", false), ("reason", "interaction_timeout")], ["FINISH:FAILURE:FACE_TIMEOUT"]),
      ([("success", false), ("reason", "multiple_faces")], ["FINISH:FAILURE:FACE_MULTIPLE_FACES_DETECTED"]),
      ([("success", false), ("reason", "interrupted")], ["SKIP:FAILURE:FACE_CANCELLED"]),
    ] as [([(String, JSONValue)], [String])] {
      let collected = CollectingAnalyticsSink()
      let sink = AnalyticsEventSink(sinks: [collected], mapping: try mapping(), kind: "face", deviceIdentifier: "d")
      sink.emit(event("result", t: 3, fields))
      #expect(collected.records.map { "\($0.event):\($0.status):\($0.statusCode ?? "-")" } == expected)
      #expect(collected.records.allSatisfy { $0.category == "FACE_SESSION" && $0.page == "FACE" })
    }
  }

  @Test("the mapping file: a wrong entry is named")
  func mappingErrors() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = try folder.write("analytics.json", #"{"card": {"category": "X"}, "codes": {"FAR": 3}}"#)
    #expect(throws: (any Error).self) { try AnalyticsMapping.load(path: path) }
    do {
      _ = try AnalyticsMapping.load(path: path)
    } catch {
      let text = "\(error)"
      #expect(text.contains("'card' needs \"category\" and \"page\" strings"), "\(text)")
      #expect(text.contains("codes.FAR"), "\(text)")
    }
  }

  @Test("the JSON Lines sink writes one record per line, complete")
  func fileSink() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("trace.jsonl")
    let file = try AnalyticsSinks.make(path)
    let sink = AnalyticsEventSink(sinks: [file], mapping: try mapping(), kind: "face", deviceIdentifier: "d")
    sink.emit(event("session", t: 0))
    sink.emit(event("hint", t: 0.5, [("key", "face.multiple")]))
    try sink.finish()
    let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
    #expect(lines.count == 4)
    let record = try JSONParser.parse(String(lines[3]))
    #expect(
      record.objectValue?.keys == [
        "sessionId", "deviceIdentifier", "category", "event", "status", "page", "statusCode", "timestamp",
      ])
    #expect(record["statusCode"] == "FACE_MULTIPLE_FACES_DETECTED")
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
