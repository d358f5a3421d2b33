import AsyncHTTPClient
import Diagnostics
import Foundation
import LicenseActivation
import Licensing
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

@Suite struct ActivationProtocolTests {
  @Test func aRequestRoundTrips() throws {
    let request = ActivationRequest(eid: "ACME-1", product: "workbench", binding: .machine(machineA))
    #expect(
      String(decoding: request.jsonData, as: UTF8.self)
        == #"{"eid":"ACME-1","product":"workbench","fingerprint":"\#(machineA.value)","container_mode":false}"#)
    #expect(try ActivationRequest.parse(request.jsonData).get() == request)
    let container = ActivationRequest(eid: "ACME-1", product: "workbench", binding: .container)
    #expect(
      String(decoding: container.jsonData, as: UTF8.self).hasSuffix(#""fingerprint":null,"container_mode":true}"#))
    #expect(try ActivationRequest.parse(container.jsonData).get() == container)
  }

  @Test func malformedRequestsSayWhy() {
    let cases: [(String, String)] = [
      ("x", "the request is not JSON"),
      ("[]", "the request is array, not an object"),
      (#"{"product":"p","fingerprint":null,"container_mode":true}"#, "'eid' is missing"),
      (#"{"eid":1,"product":"p","fingerprint":null,"container_mode":true}"#, "'eid' must be a string"),
      (#"{"eid":" ","product":"p","fingerprint":null,"container_mode":true}"#, "'eid' must not be empty"),
      (#"{"eid":"e","product":"p","fingerprint":"abc","container_mode":false}"#, "'fingerprint' must be 32 hex digits"),
      (#"{"eid":"e","product":"p","fingerprint":null,"container_mode":false}"#, "'fingerprint' must be the machine's"),
      (
        #"{"eid":"e","product":"p","fingerprint":"\#(machineA.value)","container_mode":true}"#,
        "must be null in container"
      ),
      (
        #"{"eid":"e","product":"p","fingerprint":null,"container_mode":"yes"}"#,
        "'container_mode' must be true or false"
      ),
    ]
    for (body, expected) in cases {
      switch ActivationRequest.parse(Data(body.utf8)) {
      case .success(let request): Issue.record("\(body) was read as \(request)")
      case .failure(let problem): #expect(problem.message.contains(expected), "\(body): \(problem.message)")
      }
    }
  }

  @Test func allowListsAreChecked() throws {
    #expect(try AllowedEID.parse("ACME-1") == AllowedEID(eid: "ACME-1", limit: 1))
    #expect(try AllowedEID.parse("ACME-1:3") == AllowedEID(eid: "ACME-1", limit: 3))
    #expect(try AllowedEID.parse("A:B:2") == AllowedEID(eid: "A:B", limit: 2))
    for bad in ["ACME-1:0", "ACME-1:x", ":3", "ACME-1:"] {
      #expect(throws: WorkbenchError.self, "\(bad)") { try AllowedEID.parse(bad) }
    }
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let good = try folder.write("allowed.json", #"{"ACME-1": 3, "ACME-2": 1}"#)
    #expect(
      try AllowedEID.read(path: good) == [AllowedEID(eid: "ACME-1", limit: 3), AllowedEID(eid: "ACME-2", limit: 1)])
    let bad = try folder.write("bad.json", #"{"ACME-1": 0, "ACME-2": "many"}"#)
    do {
      _ = try AllowedEID.read(path: bad)
      Issue.record("a bad allow file was read")
    } catch {
      #expect(error.status == .usage)
      #expect(error.diagnostics.count == 2)
    }
  }

  @Test func aServerNeedsAnAllowListAndAReadableState() throws {
    do {
      _ = try ActivationServer(configuration: serverConfiguration(allowed: [], days: 0))
      Issue.record("a server without EIDs was made")
    } catch {
      #expect(error.diagnostics.map(\.message).contains { $0.contains("no EID is allowed") })
      #expect(error.diagnostics.map(\.message).contains { $0.contains("--days must be from 1") })
    }
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let state = try folder.write("activations.json", "{}")
    #expect(throws: WorkbenchError.self) {
      try ActivationServer(configuration: serverConfiguration(statePath: state))
    }
  }

  @Test func healthMalformedRequestsAndUnknownPaths() async throws {
    try await withServer { server, port in
      try await HTTPClient.withHTTPClient { client in
        func send(_ method: HTTPMethod, _ path: String, _ body: String? = nil) async throws -> (Int, String) {
          var request = HTTPClientRequest(url: "http://\(loopback):\(port)\(path)")
          request.method = method
          if let body { request.body = .bytes(ByteBuffer(string: body)) }
          let response = try await client.execute(request, timeout: .seconds(120))
          let data = try await response.body.collect(upTo: 65_536)
          return (Int(response.status.code), String(buffer: data))
        }
        let health = try await send(.GET, "/v1/health")
        #expect(health.0 == 200)
        #expect(health.1 == #"{"status":"ok","product":"workbench"}"#)
        let malformed = try await send(.POST, "/v1/activate", #"{"eid":"ACME-1"}"#)
        #expect(malformed.0 == 400)
        let problem = try #require(ActivationProblem.parse(Data(malformed.1.utf8)))
        #expect(problem.reason == "malformed_request")
        #expect(problem.message.contains("'product' is missing"))
        let tooLarge = try await send(.POST, "/v1/activate", String(repeating: " ", count: 20_000))
        #expect(tooLarge.0 == 400)
        #expect(try await send(.GET, "/v1/activate").0 == 405)
        #expect(try await send(.GET, "/").0 == 404)
      }
      #expect(await server.requestCount == 5)
      #expect(await server.activationCount(eid: "ACME-1") == 0)
    }
  }

  /// `license serve` says that a host that is not loopback makes the server
  /// reachable from other machines: a name that begins like a loopback
  /// address is such a host.
  @Test func onlyLoopbackAddressesAreLoopbackNotNamesThatBeginLikeThem() {
    for host in ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"] {
      #expect(ActivationServerConfiguration.isLoopback(host), "\(host)")
    }
    for host in ["127.x.example", "127.0.0.1.example", "127.example.org", "0.0.0.0", "192.168.1.10", "::"] {
      #expect(!ActivationServerConfiguration.isLoopback(host), "\(host)")
    }
  }

  @Test func aPortInUseIsAClearError() async throws {
    let silent = try SilentServer()
    defer { silent.stop() }
    var configuration = serverConfiguration()
    configuration.port = silent.port
    do {
      try await withServer(configuration) { _, _ in Issue.record("the server listened on a port in use") }
    } catch let error as WorkbenchError {
      #expect(error.status == .usage)
      #expect(error.description.contains("cannot listen on 127.0.0.1:\(silent.port): address already in use"))
    }
  }
}
