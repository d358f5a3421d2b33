import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle

/// Runs an HTTP server on 127.0.0.1 (a free port) that answers every
/// request with `respond`, calls `run` with its port, and stops it. With
/// `tls`, it speaks HTTPS.
public func withLoopbackServer<T: Sendable>(
  tls: TLSConfiguration? = nil,
  respond: @escaping @Sendable (Request) async throws -> Response, _ run: @Sendable (Int) async throws -> T
) async throws -> T {
  let (ports, continuation) = AsyncStream<Int>.makeStream()
  var logger = Logger(label: "loopback-server")
  logger.logLevel = .error
  let application = Application(
    responder: CallbackResponder { (request: Request, _: BasicRequestContext) in try await respond(request) },
    server: try tls.map { configuration throws in try HTTPServerBuilder.tls(.http1(), tlsConfiguration: configuration) }
      ?? .http1(),
    configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
    onServerRunning: { channel in
      continuation.yield(channel.localAddress?.port ?? 0)
      continuation.finish()
    }, logger: logger)
  let group = ServiceGroup(services: [application], logger: application.logger)
  return try await withThrowingTaskGroup(of: Void.self) { tasks in
    tasks.addTask {
      defer { continuation.finish() }
      try await group.run()
    }
    var iterator = ports.makeAsyncIterator()
    guard let port = await iterator.next(), port > 0 else {
      await group.triggerGracefulShutdown()
      try await tasks.waitForAll()
      throw LoopbackServerError()
    }
    let result: Result<T, any Error>
    do { result = .success(try await run(port)) } catch { result = .failure(error) }
    await group.triggerGracefulShutdown()
    try await tasks.waitForAll()
    return try result.get()
  }
}

public struct LoopbackServerError: Error, CustomStringConvertible {
  public var description: String { "the loopback server did not start" }
}
