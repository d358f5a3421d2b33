import Diagnostics
import Foundation
import HTTPServing
import Licensing
import NIOConcurrencyHelpers
import NIOCore

/// The reference activation server: it issues licenses signed with its
/// private key for one product, to the EIDs it allows, each on at most
/// its limit of machines. Activations are kept in the state file (written
/// atomically after each new one), so a restart keeps the counts. Asking
/// again for a machine that holds a slot issues a new license without
/// taking another slot. Slow and abusive clients meet the limits of
/// ``ActivationServerLimits``; `GET /v1/metrics` counts what happened.
public final class ActivationServer: Sendable {
  public let configuration: ActivationServerConfiguration
  let ledger: ActivationLedger
  let requests = NIOLockedValueBox(0)
  let log: @Sendable (String) -> Void
  let metrics = ActivationServerMetrics()
  let connections: ConnectionTracker

  /// Checks the configuration and reads the state file (when there is one).
  /// `log` gets one line per request.
  public init(configuration: ActivationServerConfiguration, log: @escaping @Sendable (String) -> Void = { _ in })
    throws(WorkbenchError)
  {
    var problems: [Diagnostic] = []
    if configuration.product.trimmingCharacters(in: .whitespaces).isEmpty {
      problems.append(
        Diagnostic("--product must not be empty", help: "give the product the server issues licenses for"))
    }
    if configuration.allowed.isEmpty {
      problems.append(
        Diagnostic(
          "no EID is allowed, so every activation would be refused",
          help: "give --allow EID[:LIMIT] (repeatable) or --allow-file FILE"))
    }
    if !(1...LicenseIssuer.maximumDays).contains(configuration.days) {
      problems.append(
        Diagnostic(
          "--days must be from 1 to \(LicenseIssuer.maximumDays), got \(configuration.days)",
          help: "give the number of days each license holds, e.g. --days 365"))
    }
    if !(0...65_535).contains(configuration.port) {
      problems.append(
        Diagnostic(
          "--port must be from 0 to 65535, got \(configuration.port)", help: "0 picks a free port"))
    }
    problems += configuration.connectionLimits.problems()
    guard problems.isEmpty else { throw WorkbenchError(.usage, problems) }
    self.configuration = configuration
    self.log = log
    connections = ConnectionTracker(limit: configuration.connectionLimits.maximumConnections, metrics: metrics)
    var records: [ActivationState.Record] = []
    if let path = configuration.statePath {
      records = try ActivationState.read(path)
      ActivationState.removeTemporaryFilesOfStoppedServers(path)
    }
    ledger = ActivationLedger(configuration: configuration, records: records)
  }

  /// The requests answered so far (any path, any answer).
  public var requestCount: Int { get async { requests.withLockedValue { $0 } } }

  /// The machines (and container-mode activations) that hold a slot of `eid`.
  public func activationCount(eid: String) async -> Int { await ledger.count(eid: eid) }

  /// The connections so far: open, accepted, refused, closed by a timeout.
  public var connectionStatistics: ConnectionStatistics { connections.statistics }

  /// What `GET /v1/metrics` answers now.
  public var metricsText: String { String(decoding: metrics.text(), as: UTF8.self) }

  /// Listens until SIGINT or SIGTERM (when `stopOnSignals`), or until the
  /// task is cancelled. `onListening` gets the port it listens on, once.
  /// A port in use, or an address that cannot be bound, is a usage error.
  public func run(stopOnSignals: Bool, onListening: @escaping @Sendable (Int) -> Void = { _ in })
    async throws(WorkbenchError)
  {
    try configuration.connectionLimits.raiseDescriptorLimit()
    do {
      try await httpServer(stopOnSignals: stopOnSignals, onListening: onListening).run()
    } catch {
      throw describe(error)
    }
  }

  /// Starts the server, runs `body` with its port, and stops the server
  /// (also when `body` throws). For tests and tools that need a server for
  /// a while.
  public func withRunning<T: Sendable>(_ body: @Sendable (Int) async throws -> T) async throws -> T {
    try configuration.connectionLimits.raiseDescriptorLimit()
    return try await httpServer(stopOnSignals: false).withRunning(describingFailure: describe, body)
  }

  private func httpServer(stopOnSignals: Bool, onListening: @escaping @Sendable (Int) -> Void = { _ in })
    -> HTTPServer
  {
    HTTPServer(
      address: HTTPServerAddress(host: configuration.host, port: configuration.port),
      serverName: "workbench-license-server", logLabel: "workbench.license-serve",
      responder: ActivationResponder(server: self),
      channel: .guardedHTTP1(limits: configuration.connectionLimits, tracker: connections),
      // A listen backlog as deep as the connection limit (the system caps it
      // at net.core.somaxconn): when thousands of slow clients connect again
      // at once, a full backlog drops the SYN of everyone else, health
      // included, for a second until the client sends it again.
      backlog: max(256, configuration.connectionLimits.maximumConnections), stopOnSignals: stopOnSignals,
      shutdownLimit: .seconds(5), onListening: onListening)
  }

  private func describe(_ error: any Error) -> WorkbenchError {
    if let error = error as? WorkbenchError { return error }
    if error is HTTPServerStoppedBeforeListening {
      return WorkbenchError(.usage, "the activation server stopped before it listened")
    }
    let address = "\(configuration.host):\(configuration.port)"
    if let error = error as? IOError {
      let help =
        error.errnoCode == EADDRINUSE
        ? "another program listens there: stop it or choose another --port (0 picks a free one)"
        : "check --host (an address of this machine) and --port"
      return WorkbenchError(
        .usage, "cannot listen on \(address): \(String(cString: strerror(error.errnoCode)).lowercased())", help: help)
    }
    return WorkbenchError(
      .usage, "cannot listen on \(address): \(error)", help: "check --host (an address of this machine) and --port")
  }
}
