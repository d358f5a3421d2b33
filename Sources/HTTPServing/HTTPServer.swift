import Dispatch
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// An HTTP server on an address: Hummingbird's application in a service
/// group of its own, started so that whoever starts it learns the port it
/// listens on (the one it was given, or the free one it found for port 0).
/// Each server runs once: `run`, `withRunning`, or `start` and `stop`.
public final class HTTPServer: Sendable {
  public let address: HTTPServerAddress
  private let services: ServiceGroup
  private let listening: ListeningSignal
  private let running = DispatchGroup()

  /// - Parameters:
  ///   - logLabel: the label of Hummingbird's messages, written to standard
  ///     error, and only when something goes wrong.
  ///   - channel: how a connection is served (Hummingbird's HTTP/1.1 unless
  ///     the server puts something in front of it).
  ///   - backlog: the listen backlog.
  ///   - stopOnSignals: SIGINT and SIGTERM stop it gracefully.
  ///   - shutdownLimit: how long a graceful shutdown may take, and then the
  ///     cancellation of what is still open.
  ///   - onListening: the port, once it listens.
  public init<Responder: HTTPResponder>(
    address: HTTPServerAddress, serverName: String, logLabel: String, responder: Responder,
    channel: HTTPServerBuilder = .http1(), backlog: Int = 256, stopOnSignals: Bool = false, shutdownLimit: Duration,
    onListening: @escaping @Sendable (Int) -> Void = { _ in }
  ) where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
    self.address = address
    var logger = Logger(label: logLabel) { StreamLogHandler.standardError(label: $0) }
    logger.logLevel = .error
    let listening = ListeningSignal()
    self.listening = listening
    let application = Application(
      responder: responder, server: channel,
      configuration: ApplicationConfiguration(
        address: .hostname(address.host, port: address.port), serverName: serverName, backlog: backlog,
        reuseAddress: true),
      onServerRunning: { channel in
        let port = channel.localAddress?.port ?? 0
        // Told first: whoever waits for the port may count on it.
        onListening(port)
        listening.settle(.listening(port: port))
      },
      logger: logger)
    var configuration = ServiceGroupConfiguration(
      services: [application], gracefulShutdownSignals: stopOnSignals ? [.sigterm, .sigint] : [], logger: logger)
    configuration.maximumGracefulShutdownDuration = shutdownLimit
    configuration.maximumCancellationDuration = shutdownLimit
    services = ServiceGroup(configuration: configuration)
  }

  /// Listens until it is stopped: by `stop`, a signal (with
  /// `stopOnSignals`), or the cancellation of the task. Throws what stopped
  /// it otherwise, e.g. an address that cannot be bound (NIO's `IOError`).
  public func run() async throws {
    do {
      try await services.run()
    } catch {
      listening.settle(.stopped(failure: error))
      throw error
    }
    listening.settle(.stopped(failure: nil))
  }

  /// Starts the server, runs `body` with its port, and stops the server
  /// (also when `body` throws). What keeps the server from listening, or
  /// ends it, is thrown as `describe` makes it; `body`'s errors as they are.
  public func withRunning<T: Sendable>(
    describingFailure describe: @escaping @Sendable (any Error) -> any Error = { $0 },
    _ body: @Sendable (Int) async throws -> T
  ) async throws -> T {
    try await withThrowingTaskGroup(of: Void.self) { tasks in
      tasks.addTask {
        do { try await self.run() } catch { throw describe(error) }
      }
      guard case .listening(let port) = await listening.outcome() else {
        // It stopped before it listened: its error, if it has one.
        try await tasks.waitForAll()
        throw describe(HTTPServerStoppedBeforeListening())
      }
      let result: Result<T, any Error>
      do { result = .success(try await body(port)) } catch { result = .failure(error) }
      await services.triggerGracefulShutdown()
      try await tasks.waitForAll()
      return try result.get()
    }
  }

  /// Starts the server on a task of its own and waits, blocking this
  /// thread, until it listens: its port. Throws what kept it from
  /// listening (``HTTPServerStoppedBeforeListening`` when nothing did).
  public func start() throws -> Int {
    running.enter()
    Task.detached { [self] in
      defer { running.leave() }
      try? await run()
    }
    switch listening.waitForOutcome() {
    case .listening(let port): return port
    case .stopped(let failure): throw failure ?? HTTPServerStoppedBeforeListening()
    }
  }

  /// Stops a server that `start` started, and waits for it (5 s at most):
  /// open requests end.
  public func stop() {
    Task.detached { [services] in await services.triggerGracefulShutdown() }
    _ = running.wait(timeout: .now() + 5)
  }
}

/// The server ended without an error before it listened.
public struct HTTPServerStoppedBeforeListening: Error, CustomStringConvertible {
  public var description: String { "it stopped before it listened" }
}

/// Whether a server listens (and on which port) or stopped first, for those
/// who wait to know, on a task or on a thread.
private final class ListeningSignal: @unchecked Sendable {
  enum Outcome: Sendable {
    case listening(port: Int)
    case stopped(failure: (any Error)?)
  }

  private let condition = NSCondition()
  private var settled: Outcome?
  private var waiting: [CheckedContinuation<Outcome, Never>] = []

  /// The first outcome holds: a server that stops after it listened did listen.
  func settle(_ outcome: Outcome) {
    condition.lock()
    guard settled == nil else {
      condition.unlock()
      return
    }
    settled = outcome
    let woken = waiting
    waiting = []
    condition.broadcast()
    condition.unlock()
    for continuation in woken { continuation.resume(returning: outcome) }
  }

  func outcome() async -> Outcome {
    await withCheckedContinuation { continuation in
      condition.lock()
      let known = settled
      if known == nil { waiting.append(continuation) }
      condition.unlock()
      if let known { continuation.resume(returning: known) }
    }
  }

  func waitForOutcome() -> Outcome {
    condition.lock()
    defer { condition.unlock() }
    while settled == nil { condition.wait() }
    return settled!
  }
}
