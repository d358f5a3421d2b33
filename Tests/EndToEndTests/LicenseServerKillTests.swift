import Foundation
import JSONCore
import LoopbackClient
import TestSupport
import Testing

/// `workbench license serve` killed with SIGKILL while clients activate:
/// the state file must still be whole, hold every license the server sent,
/// and start the server again.
@Suite struct LicenseServerKillTests {
  /// The fingerprints that got a license, from every client thread.
  private final class Acknowledged: @unchecked Sendable {
    private let lock = NSLock()
    private var fingerprints: Set<String> = []
    private var stopped = false

    func add(_ fingerprint: String) { lock.withLock { _ = fingerprints.insert(fingerprint) } }
    var all: Set<String> { lock.withLock { fingerprints } }
    func stop() { lock.withLock { stopped = true } }
    var isStopped: Bool { lock.withLock { stopped } }
  }

  /// One activation over its own connection; the status of the answer, or nil.
  private static func activate(port: Int, fingerprint: String) -> Int? {
    guard let connection = try? LoopbackConnection(port: port) else { return nil }
    let body = #"{"eid":"LOAD-1","product":"workbench","fingerprint":"\#(fingerprint)","container_mode":false}"#
    connection.send(
      "POST /v1/activate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
    let answer = connection.readUntilClosed(limit: 60).text
    guard answer.hasPrefix("HTTP/1.1 ") else { return nil }
    return Int(answer.dropFirst(9).prefix(3))
  }

  private static func fingerprint(client: Int, request: Int) -> String {
    String(format: "%08x%024x", client, request)
  }

  /// The fingerprints in the state file, checking that it is one.
  private func recordedFingerprints(
    _ path: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> [String] {
    let text = try #require(fileText(path), "no state file", sourceLocation: sourceLocation)
    #expect(text.hasSuffix("}\n"), "the state file is cut short", sourceLocation: sourceLocation)
    let document = try JSONParser.parse(text)
    #expect(document["workbench_activations"]?.integerValue == 1, sourceLocation: sourceLocation)
    let records = try #require(document["activations"]?.arrayValue, sourceLocation: sourceLocation)
    return try records.map { record in
      #expect(record["eid"]?.stringValue == "LOAD-1", sourceLocation: sourceLocation)
      #expect(record["product"]?.stringValue == "workbench", sourceLocation: sourceLocation)
      #expect(record["license_id"]?.stringValue?.count == 36, sourceLocation: sourceLocation)
      return try #require(record["fingerprint"]?.stringValue, sourceLocation: sourceLocation)
    }
  }

  @Test func aServerKilledDuringActivationsKeepsEveryLicenseItSentInItsStateFile() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    #expect(try workbench(["license", "keygen", "--out", folder.file("keys")], folder: folder).status == 0)
    let state = folder.file("activations.json")
    let arguments = [
      "--key", folder.file("keys/private.key.json"), "--product", "workbench", "--allow", "LOAD-1:1000000",
      "--port", "0", "--state", state,
    ]
    let (server, port) = try launchLicenseServer(arguments, folder: folder)
    defer { if server.isRunning { kill(server.process.processIdentifier, SIGKILL) } }

    // Eight clients activate new machines one after the other, each at most
    // 5,000 times (a bound in count; the kill ends them much sooner).
    let acknowledged = Acknowledged()
    let finished = DispatchGroup()
    for client in 0..<8 {
      finished.enter()
      Thread {
        defer { finished.leave() }
        for request in 0..<5_000 where !acknowledged.isStopped {
          let fingerprint = Self.fingerprint(client: client, request: request)
          if Self.activate(port: port, fingerprint: fingerprint) == 200 { acknowledged.add(fingerprint) }
        }
      }.start()
    }
    let deadline = Date().addingTimeInterval(120)
    while acknowledged.all.count < 200 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
    #expect(acknowledged.all.count >= 200, "the server issued only \(acknowledged.all.count) licenses")
    kill(server.process.processIdentifier, SIGKILL)
    let killed = server.wait(safetyLimit: 30)
    #expect(killed.signaled, "\(killed)")
    acknowledged.stop()
    #expect(finished.wait(timeout: .now() + 120) == .success, "the clients did not stop")

    // Whole, and every license a client received is recorded (a record may
    // be there whose answer the kill cut off: it is written before the answer).
    let recorded = try recordedFingerprints(state)
    #expect(Set(recorded).count == recorded.count, "a machine is recorded twice")
    let missing = acknowledged.all.subtracting(recorded)
    #expect(missing.isEmpty, "licenses sent but not recorded: \(missing.sorted().prefix(5))")
    #expect(recorded.count >= acknowledged.all.count)

    // It starts again from that file, leaves no temporary file of the killed
    // server behind, and goes on counting.
    let (restarted, newPort) = try launchLicenseServer(arguments, folder: folder)
    defer { if restarted.isRunning { restarted.process.terminate() } }
    #expect(
      folder.listing.filter { $0.hasPrefix(".activations.json.") }.isEmpty,
      "temporary files left: \(folder.listing)")
    #expect(Self.activate(port: newPort, fingerprint: Self.fingerprint(client: 99, request: 0)) == 200)
    restarted.process.terminate()
    let stopped = restarted.wait(safetyLimit: 30)
    #expect(stopped.status == 0, "\(stopped)")
    #expect(stopped.stdout.contains("allowed: LOAD-1 (\(recorded.count) of 1000000 used)"), "\(stopped)")
    #expect(try recordedFingerprints(state).count == recorded.count + 1)
  }
}
