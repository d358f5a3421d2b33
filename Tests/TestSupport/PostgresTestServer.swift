import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A throwaway PostgreSQL server for the tests of shared galleries: a new
/// cluster (initdb) in a temporary folder, listening on a free loopback
/// port, trusted without a password, stopped when the test process exits.
/// As root it runs as the `postgres` system user, which the server needs.
/// Each test asks for a database of its own.
public final class PostgresTestServer: @unchecked Sendable {
  public let port: Int
  public let folder: String
  private let binaries: String
  /// With TLS: the server's self-signed certificate (PEM), made at start by
  /// `openssl req` for the name `localhost` only, which is also its own
  /// authority: a client's sslrootcert.
  public let certificate: String?

  /// The one server of this test process, started on first use.
  public static func shared() throws -> PostgresTestServer {
    lock.lock()
    defer { lock.unlock() }
    if let running { return running }
    let server = try PostgresTestServer()
    running = server
    atexit { PostgresTestServer.running?.stop() }
    return server
  }

  /// The server of this test process that speaks TLS, started on first use.
  public static func sharedTLS() throws -> PostgresTestServer {
    lock.lock()
    defer { lock.unlock() }
    if let runningTLS { return runningTLS }
    let server = try PostgresTestServer(tls: true)
    runningTLS = server
    atexit { PostgresTestServer.runningTLS?.stop() }
    return server
  }

  nonisolated(unsafe) private static var running: PostgresTestServer?
  nonisolated(unsafe) private static var runningTLS: PostgresTestServer?
  private static let lock = NSLock()
  private static let user = "workbench"

  private init(tls: Bool = false) throws {
    guard
      let binaries = try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql").sorted().last.map({
        "/usr/lib/postgresql/\($0)/bin"
      }), FileManager.default.isExecutableFile(atPath: binaries + "/initdb")
    else {
      throw ServerError("PostgreSQL's server is not installed: run scripts/install-test-deps (postgresql-15)")
    }
    self.binaries = binaries
    folder = NSTemporaryDirectory() + "workbench-postgres-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    if getuid() == 0 {
      try Self.run("/bin/chown", ["postgres:postgres", folder])
    }
    port = try freeLoopbackPort()
    var serverOptions = "-p \(port) -k \(folder) -c listen_addresses=127.0.0.1 -c fsync=off"
    if tls {
      let key = folder + "/server.key"
      let certificate = folder + "/server.crt"
      try Self.run(
        "/usr/bin/openssl",
        [
          "req", "-new", "-x509", "-days", "2", "-nodes", "-newkey", "rsa:2048", "-subj", "/CN=localhost",
          "-addext", "subjectAltName=DNS:localhost", "-keyout", key, "-out", certificate,
        ])
      // The server refuses a key that others can read.
      chmod(key, 0o600)
      if getuid() == 0 { try Self.run("/bin/chown", ["postgres:postgres", key, certificate]) }
      chmod(certificate, 0o644)
      self.certificate = certificate
      serverOptions += " -c ssl=on -c ssl_cert_file=\(certificate) -c ssl_key_file=\(key)"
    } else {
      certificate = nil
    }
    try asServerUser(binaries + "/initdb", ["-D", folder + "/data", "-U", Self.user, "--auth=trust", "-E", "UTF8"])
    try asServerUser(
      binaries + "/pg_ctl",
      ["-D", folder + "/data", "-l", folder + "/server.log", "-w", "-o", serverOptions, "start"])
  }

  /// A new, empty database, as a postgres:// URL.
  public func database(_ name: String = "g" + UUID().uuidString.prefix(8).lowercased()) throws -> String {
    try asServerUser(binaries + "/createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", Self.user, name])
    return "postgres://\(Self.user)@127.0.0.1:\(port)/\(name)"
  }

  public func stop() {
    try? asServerUser(binaries + "/pg_ctl", ["-D", folder + "/data", "-m", "immediate", "-w", "stop"])
    try? FileManager.default.removeItem(atPath: folder)
  }

  private func asServerUser(_ program: String, _ arguments: [String]) throws {
    if getuid() == 0 {
      try Self.run("/usr/sbin/runuser", ["-u", "postgres", "--", program] + arguments)
    } else {
      try Self.run(program, arguments)
    }
  }

  /// Runs `program` and waits for it (``Spawn``: pg_ctl leaves the server running).
  private static func run(_ program: String, _ arguments: [String]) throws {
    let run = try Spawn.run(program, arguments)
    guard run.status == 0 else {
      throw ServerError("\(program) \(arguments.joined(separator: " ")) failed: \(run.stdout)\(run.stderr)")
    }
  }

  public struct ServerError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
  }
}
