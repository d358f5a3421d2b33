import AsyncHTTPClient
import Diagnostics
import Foundation
import LicenseActivation
import Licensing
import LoopbackClient
import NIOCore
import Testing

/// The server's limits against slow and abusive clients, with timeouts
/// short enough for a test. Every wait has a generous safety limit: these
/// tests check what the server does, never how fast.
@Suite struct ServerLimitsTests {
  /// Limits with `short` seconds for the one timeout under test and a
  /// minute for the others.
  private func limits(
    header: Double = 60, body: Double = 60, idle: Double = 60, connections: Int = 64
  ) -> ActivationServerLimits {
    ActivationServerLimits(
      headerTimeout: .seconds(header), bodyTimeout: .seconds(body), idleTimeout: .seconds(idle),
      maximumConnections: connections)
  }

  @Test func aClientThatSendsOneHeaderAtATimeIsDisconnectedAtTheHeaderTimeout() async throws {
    try await withServer(serverConfiguration(connectionLimits: limits(header: 0.5))) { server, port in
      let answer = try await onThread {
        let connection = try LoopbackConnection(port: port)
        // A header every 100 ms keeps the connection busy: only a deadline
        // for the whole head ends it.
        return connection.trickle(
          ["GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n"] + (0..<600).map { "X-Slow-\($0): 1\r\n" }, interval: 0.1)
      }
      let text = try #require(answer, "the slow client was still connected after 600 headers")
      // The 408 is sent first; a close that reset the connection may lose it.
      if !text.isEmpty {
        #expect(text.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"), "\(text)")
        #expect(text.contains(#""reason":"request_timeout""#), "\(text)")
      }
      #expect(server.connectionStatistics.timeouts[.header] == 1)
      #expect(await server.requestCount == 0)
    }
  }

  @Test func aBodySentOneByteAtATimeIsCutAtTheBodyTimeout() async throws {
    try await withServer(serverConfiguration(connectionLimits: limits(body: 0.5))) { server, port in
      let answer = try await onThread {
        let connection = try LoopbackConnection(port: port)
        let head =
          "POST /v1/activate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          + "Content-Length: 1000\r\n\r\n"
        return connection.trickle([head] + Array(repeating: " ", count: 600), interval: 0.1)
      }
      #expect(answer != nil, "the slow body was still being read after 600 bytes")
      #expect(server.connectionStatistics.timeouts[.body] == 1)
      // The responder finds the connection closed, and says so in the metrics.
      // Both counters are written as the responder finishes: wait for both.
      let counted = try await eventually {
        server.metricsText.contains(
          #"workbench_license_server_activations_total{outcome="incomplete_request"} 1"#)
          && server.metricsText.contains(#"requests_total{path="/v1/activate",status="408"} 1"#)
      }
      #expect(counted, "\(server.metricsText)")
      #expect(await server.activationCount(eid: "ACME-1") == 0)
    }
  }

  @Test func aKeptAliveConnectionIsClosedAfterTheIdleTimeout() async throws {
    // 2 s, not less: on a loaded machine the client thread may wait that long between
    // connecting and sending, and an idle first request would be closed before it came.
    try await withServer(serverConfiguration(connectionLimits: limits(idle: 2))) { server, port in
      let (first, second, end) = try await onThread {
        let connection = try LoopbackConnection(port: port)
        let request = "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        connection.send(request)
        let first = connection.readResponse(limit: 30)
        // Kept alive: a second request on the same connection is answered.
        connection.send(request)
        let second = connection.readResponse(limit: 30)
        return (first, second, connection.readUntilClosed(limit: 60))
      }
      #expect(first?.hasPrefix("HTTP/1.1 200 OK\r\n") == true, "\(first ?? "no answer")")
      #expect(second?.hasPrefix("HTTP/1.1 200 OK\r\n") == true, "\(second ?? "no answer")")
      #expect(end.closed, "the idle connection stayed open")
      #expect(end.text.isEmpty, "an idle connection is closed without a word: \(end.text)")
      #expect(server.connectionStatistics.timeouts[.idle] == 1)
      #expect(server.connectionStatistics.timeouts[.header] == nil)
    }
  }

  @Test func aConnectionOverTheLimitIsRefusedAndHealthAnswersOnceSlotsAreFree() async throws {
    let configuration = serverConfiguration(connectionLimits: limits(connections: 2))
    try await withServer(configuration) { server, port in
      typealias Read = (text: String, closed: Bool)
      let (refusal, health) = try await onThread { () throws -> (Read?, Read?) in
        // Two connections that send nothing hold both slots.
        let holders = try (0..<2).map { _ in try LoopbackConnection(port: port) }
        guard waitFor({ server.connectionStatistics.open == 2 }) else { return (nil, nil) }
        let refused = try LoopbackConnection(port: port)
        refused.send("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let refusal = refused.readUntilClosed(limit: 30)
        for holder in holders { holder.close() }
        guard waitFor({ server.connectionStatistics.open == 0 }) else { return (refusal, nil) }
        let probe = try LoopbackConnection(port: port)
        probe.send("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        return (refusal, probe.readUntilClosed(limit: 30))
      }
      let refused = try #require(refusal, "the two connections were not both counted")
      #expect(refused.closed, "the refused connection was left open")
      #expect(refused.text.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"), "\(refused.text)")
      #expect(refused.text.contains("\r\nConnection: close\r\n"), "\(refused.text)")
      #expect(refused.text.contains("\r\nRetry-After: 1\r\n"), "\(refused.text)")
      let body = String(refused.text.split(separator: "\r\n\r\n", maxSplits: 1).last ?? "")
      let problem = try #require(ActivationProblem.parse(Data(body.utf8)), "\(refused.text)")
      #expect(problem.reason == "too_many_connections")
      #expect(problem.message == "the server has 2 connections open, its limit; try again shortly")
      let answered = try #require(health, "the connections did not close")
      #expect(answered.text.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(answered.text)")
      #expect(server.connectionStatistics.refused == 1)
      #expect(server.metricsText.contains("workbench_license_server_refused_connections_total 1"))
      // The refused connection was never read as a request.
      #expect(await server.requestCount == 1)
    }
  }

  @Test func metricsAreInThePrometheusTextFormatAndCountPerServer() async throws {
    let client = try ClientFixture()
    defer { client.folder.remove() }
    try await withServer(serverConfiguration(allowed: [AllowedEID(eid: "ACME-1", limit: 1)])) { server, port in
      // A second server in the same process counts on its own.
      try await withServer { other, otherPort in
        _ = try await client.activator(try client.config(port: port)).activate()
        _ = try await client.activator(try client.config(port: port)).activate(force: true)
        _ = await activationError(
          client.activator(try client.config(port: port, eid: "NOPE-9", name: "nope.conf")))
        let (headers, text) = try await get(port: port, path: "/v1/metrics")
        #expect(headers.contains("content-type: text/plain; version=0.0.4; charset=utf-8"), "\(headers)")
        _ = try await get(port: otherPort, path: "/v1/health")
        _ = try await get(port: otherPort, path: "/no/such/path")

        let series = try parsePrometheusText(text)
        let name = "workbench_license_server_"
        #expect(series[name + #"activations_total{outcome="issued"}"#] == 1, "\(text)")
        #expect(series[name + #"activations_total{outcome="reissued"}"#] == 1, "\(text)")
        #expect(series[name + #"activations_total{outcome="unknown_eid"}"#] == 1, "\(text)")
        #expect(series[name + #"activations_total{outcome="limit_reached"}"#] == 0, "\(text)")
        #expect(series[name + #"requests_total{path="/v1/activate",status="200"}"#] == 2, "\(text)")
        #expect(series[name + #"requests_total{path="/v1/activate",status="403"}"#] == 1, "\(text)")
        #expect(series[name + "refused_connections_total"] == 0, "\(text)")
        #expect(series[name + #"timeouts_total{kind="header"}"#] == 0, "\(text)")
        // At least the connection that asked for the metrics.
        #expect((series[name + "open_connections"] ?? 0) >= 1, "\(text)")
        #expect((series[name + "connections_total"] ?? 0) >= 4, "\(text)")

        let others = try parsePrometheusText(other.metricsText)
        #expect(others[name + #"activations_total{outcome="issued"}"#] == 0)
        #expect(others[name + #"requests_total{path="/v1/health",status="200"}"#] == 1)
        // A path nobody asked for is not a series of its own.
        #expect(others[name + #"requests_total{path="other",status="404"}"#] == 1)
        #expect(!other.metricsText.contains("/no/such/path"))
      }
    }
  }

  @Test func limitsOutOfRangeAreRefusedNamingTheirOption() throws {
    let limits = ActivationServerLimits(
      headerTimeout: .zero, bodyTimeout: .seconds(10), idleTimeout: .seconds(7200), maximumConnections: 0)
    do {
      _ = try ActivationServer(configuration: serverConfiguration(connectionLimits: limits))
      Issue.record("a server with a zero timeout was made")
    } catch {
      #expect(error.status == .usage)
      let messages = error.diagnostics.map(\.message)
      #expect(messages.contains("--header-timeout must be from 0.05 to 3600 seconds, got 0"), "\(messages)")
      #expect(messages.contains("--idle-timeout must be from 0.05 to 3600 seconds, got 7200"), "\(messages)")
      #expect(messages.contains("--max-connections must be from 1 to 1000000, got 0"), "\(messages)")
      #expect(messages.count == 3, "\(messages)")
    }
  }

  /// The lower-cased head and the body of a GET on loopback.
  private func get(port: Int, path: String) async throws -> (head: String, body: String) {
    try await HTTPClient.withHTTPClient { client in
      let response = try await client.execute(
        HTTPClientRequest(url: "http://\(loopback):\(port)\(path)"), timeout: .seconds(120))
      let head = response.headers.map { "\($0.name.lowercased()): \($0.value)" }.joined(separator: "\n")
      return (head, String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }
  }
}

/// The samples of a text in the Prometheus text format (version 0.0.4), by
/// series (`name{labels}`); a line that is neither a comment nor a sample
/// is an error.
func parsePrometheusText(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> [String:
  Double]
{
  #expect(text.hasSuffix("\n"), "the last line is not complete", sourceLocation: sourceLocation)
  var samples: [String: Double] = [:]
  var types: [String: String] = [:]
  let name = #/[a-zA-Z_:][a-zA-Z0-9_:]*/#
  let sample = #/([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})?) (\S+)/#
  for line in text.split(separator: "\n") {
    if line.hasPrefix("# HELP ") || line.hasPrefix("# TYPE ") {
      let words = line.split(separator: " ", maxSplits: 3)
      try #require(words.count >= 3 && words[2].wholeMatch(of: name) != nil, "\(line)", sourceLocation: sourceLocation)
      if words[1] == "TYPE" { types[String(words[2])] = words.count > 3 ? String(words[3]) : "" }
      continue
    }
    let match = try #require(line.wholeMatch(of: sample), "not a sample: \(line)", sourceLocation: sourceLocation)
    let value = try #require(Double(match.2), "not a number: \(line)", sourceLocation: sourceLocation)
    let series = String(match.1)
    #expect(samples[series] == nil, "\(series) twice", sourceLocation: sourceLocation)
    let family = String(series.prefix { $0 != "{" })
    #expect(types[family] != nil, "\(family) has no TYPE line before it", sourceLocation: sourceLocation)
    samples[series] = value
  }
  return samples
}

/// Runs `work` on a thread of its own: blocking socket calls must not hold
/// one of the few threads the server's tasks run on.
func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    Thread { continuation.resume(with: Result { try work() }) }.start()
  }
}

/// Waits until `condition` holds, for at most a minute (a safety limit).
func waitFor(_ condition: () -> Bool) -> Bool {
  let deadline = Date().addingTimeInterval(60)
  while Date() < deadline {
    if condition() { return true }
    Thread.sleep(forTimeInterval: 0.02)
  }
  return condition()
}

/// `waitFor` for async tests.
func eventually(_ condition: @Sendable () async -> Bool) async throws -> Bool {
  let deadline = Date().addingTimeInterval(60)
  while Date() < deadline {
    if await condition() { return true }
    try await Task.sleep(for: .milliseconds(20))
  }
  return await condition()
}
