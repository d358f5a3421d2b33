import Foundation
import HTTPServing
import Hummingbird
import LoopbackClient
import NIOCore
import Testing

@Suite struct HTTPServerTests {
  private func greeter(port: Int = 0) -> HTTPServer {
    let router = Router()
    router.get("/hello") { _, _ in "hello" }
    return HTTPServer(
      address: HTTPServerAddress(host: "127.0.0.1", port: port), serverName: "test", logLabel: "test",
      responder: router.buildResponder(), shutdownLimit: .seconds(2))
  }

  @Test func itListensOnAFreePortOfLoopbackAndAnswers() async throws {
    let told = PortBox()
    let router = Router()
    router.get("/hello") { _, _ in "hello" }
    let server = HTTPServer(
      address: HTTPServerAddress(), serverName: "test", logLabel: "test", responder: router.buildResponder(),
      shutdownLimit: .seconds(2), onListening: { told.port = $0 })
    let answer = try await server.withRunning { port in
      #expect(port > 0)
      #expect(told.port == port)
      return try await onThread { try get("/hello", port: port) }
    }
    #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(answer)")
    #expect(answer.hasSuffix("\r\n\r\nhello"), "\(answer)")
  }

  @Test func startedOnAThreadItAnswersUntilStopped() async throws {
    let server = greeter()
    let port = try await onThread { try server.start() }
    let answer = try await onThread { try get("/hello", port: port) }
    #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(answer)")
    await onThread { server.stop() }
    #expect(throws: (any Error).self) { try LoopbackConnection(port: port) }
  }

  @Test func aPortInUseIsNIOsError() async throws {
    try await greeter().withRunning { port in
      do {
        _ = try await greeter(port: port).withRunning { _ in Issue.record("two servers listened on port \(port)") }
      } catch let error as IOError {
        #expect(error.errnoCode == EADDRINUSE)
      }
      let second = greeter(port: port)
      do {
        _ = try await onThread { try second.start() }
        Issue.record("two servers listened on port \(port)")
      } catch let error as IOError {
        #expect(error.errnoCode == EADDRINUSE)
      }
    }
  }
}

/// GET `path` from 127.0.0.1:`port` on a connection of its own: the whole answer.
private func get(_ path: String, port: Int) throws -> String {
  let connection = try LoopbackConnection(port: port)
  connection.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
  return connection.readUntilClosed(limit: 30).text
}

/// Runs `work` on a thread of its own: blocking calls must not hold one of
/// the few threads the server's tasks run on.
private func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    Thread { continuation.resume(with: Result { try work() }) }.start()
  }
}

private func onThread(_ work: @escaping @Sendable () -> Void) async {
  await withCheckedContinuation { continuation in
    Thread {
      work()
      continuation.resume()
    }.start()
  }
}

private final class PortBox: @unchecked Sendable {
  private let lock = NSLock()
  private var stored = 0
  var port: Int {
    get { lock.withLock { stored } }
    set { lock.withLock { stored = newValue } }
  }
}
