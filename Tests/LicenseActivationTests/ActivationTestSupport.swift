import Diagnostics
import Foundation
import HTTPTestSupport
import Hummingbird
import LicenseActivation
import Licensing
import Logging
import ServiceLifecycle
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Fixed keys, so that tests need no randomness.
let serverKey = LicensePrivateKey(rawRepresentation: Data(repeating: 7, count: 32))!
let otherKey = LicensePrivateKey(rawRepresentation: Data(repeating: 9, count: 32))!
let verifier = LicenseVerifier(publicKeys: [serverKey.publicKey])

let machineA = MachineFingerprint("0123456789abcdef0123456789abcdef")!
let machineB = MachineFingerprint("fedcba9876543210fedcba9876543210")!

/// Every test's server and client use this address, and nothing else.
let loopback = "127.0.0.1"

/// A folder with a license.conf pointing at a server on loopback.
struct ClientFixture {
  let folder: TemporaryFolder

  init() throws { folder = try TemporaryFolder(prefix: "workbench-activation") }

  /// Writes license.conf for a server at `port` and returns it, loaded.
  func config(
    port: Int, eid: String = "ACME-1", product: String = "workbench", timeout: Int = 120, containerMode: Bool = false,
    name: String = "license.conf"
  ) throws -> LicenseConfig {
    let path = try folder.write(
      name,
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <settings>
        <section name="Licensing::Settings">
          <param name="Server" type="Value::String" text="http://\(loopback):\(port)"/>
          <param name="EID" type="Value::String" text="\(eid)"/>
          <param name="ProductID" type="Value::String" text="\(product)"/>
          <param name="Filename" type="Value::String" text="license.dat"/>
          <param name="ContainerMode" type="Value::Int1" x="\(containerMode ? 1 : 0)"/>
          <param name="ConnectionTimeout" type="Value::Int1" x="\(timeout)"/>
        </section>
      </settings>

      """)
    return try LicenseConfigLoader.load(path: path)
  }

  func activator(_ config: LicenseConfig, machine: MachineFingerprint = machineA) -> LicenseActivator {
    LicenseActivator(config: config, verifier: verifier, fingerprint: machine)
  }

  var licensePath: String { folder.file("license.dat") }
}

/// A server configuration on loopback with a free port.
func serverConfiguration(
  allowed: [AllowedEID] = [AllowedEID(eid: "ACME-1", limit: 1)], key: LicensePrivateKey = serverKey,
  statePath: String? = nil, days: Int = 30, connectionLimits: ActivationServerLimits = ActivationServerLimits()
) -> ActivationServerConfiguration {
  ActivationServerConfiguration(
    host: loopback, port: 0, product: "workbench", allowed: allowed, days: days, features: ["card", "face"],
    privateKey: key, statePath: statePath, connectionLimits: connectionLimits)
}

/// Runs `body` with an activation server on loopback, stopped afterwards.
@discardableResult
func withServer<T: Sendable>(
  _ configuration: ActivationServerConfiguration = serverConfiguration(),
  _ body: @Sendable (ActivationServer, Int) async throws -> T
) async throws -> T {
  let server = try ActivationServer(configuration: configuration)
  return try await server.withRunning { port in try await body(server, port) }
}

/// The error an activation throws; a recorded issue when it succeeds.
func activationError(
  _ activator: LicenseActivator, force: Bool = false, sourceLocation: Testing.SourceLocation = #_sourceLocation
) async -> ActivationError? {
  do {
    let outcome = try await activator.activate(force: force)
    Issue.record("activation succeeded: \(outcome)", sourceLocation: sourceLocation)
    return nil
  } catch {
    return error
  }
}

/// An HTTP server on loopback that answers every request with `status` and `body`.
func withStubServer<T: Sendable>(
  status: HTTPResponse.Status, body: String, _ run: @Sendable (Int) async throws -> T
) async throws -> T {
  try await withLoopbackServer(
    respond: { _ in Response(status: status, body: ResponseBody(byteBuffer: ByteBuffer(string: body))) }, run)
}

/// A TCP server on loopback that accepts connections and never answers,
/// holding them until it is stopped.
final class SilentServer: @unchecked Sendable {
  let port: Int
  private let listener: Int32
  private let lock = NSLock()
  private var stopped = false
  private var accepted: [Int32] = []
  private let finished = DispatchSemaphore(value: 0)

  init() throws {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    self.listener = listener
    guard listener >= 0 else { throw POSIXError(.EMFILE) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr(loopback)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
    }
    guard bound == 0, listen(listener, 8) == 0 else {
      close(listener)
      throw POSIXError(.EADDRINUSE)
    }
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
    }
    port = Int(UInt16(bigEndian: address.sin_port))
    let thread = Thread { [self] in acceptLoop() }
    thread.start()
  }

  private var isStopped: Bool { lock.withLock { stopped } }

  /// Accepts for at most a minute, so that it never outlives a test by much.
  private func acceptLoop() {
    let deadline = Date().addingTimeInterval(60)
    while !isStopped && Date() < deadline {
      var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
      if poll(&poller, 1, 50) > 0 {
        let connection = accept(listener, nil, nil)
        if connection >= 0 { lock.withLock { accepted.append(connection) } }
      }
    }
    finished.signal()
  }

  /// How many connections it accepted.
  var connectionCount: Int { lock.withLock { accepted.count } }

  func stop() {
    lock.withLock { stopped = true }
    finished.wait()
    for connection in lock.withLock({ accepted }) { close(connection) }
    close(listener)
  }
}

/// A loopback port that nobody listens on (bound once, then closed).
func unusedPort() throws -> Int {
  let server = try SilentServer()
  let port = server.port
  server.stop()
  return port
}

/// `data` with one character of its payload changed.
func tampered(_ data: Data) throws -> Data {
  var text = String(decoding: data, as: UTF8.self)
  let index = try #require(text.range(of: #""payload":""#)).upperBound
  text.replaceSubrange(index...index, with: text[index] == "A" ? "B" : "A")
  return Data(text.utf8)
}
