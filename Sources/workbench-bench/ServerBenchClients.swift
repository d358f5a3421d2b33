import Foundation
import LoopbackClient

#if canImport(Glibc)
  import Glibc
#endif

// The server bench's clients that play by the rules: health probes and activations.

/// GET `path` on a connection of its own; the body, or nil.
func httpGet(port: Int, path: String) -> String? {
  guard let descriptor = try? LoopbackSocket.connect(port: port) else { return nil }
  defer { close(descriptor) }
  guard LoopbackSocket.send(descriptor, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"),
    let answer = LoopbackSocket.readToEnd(descriptor, limit: 30), LoopbackSocket.status(of: answer) == 200
  else { return nil }
  let text = String(decoding: answer, as: UTF8.self)
  return text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) }
}

/// GET /v1/health every 100 ms on a new connection, timing each answer.
final class HealthProbe: @unchecked Sendable {
  struct Results {
    var latencies: [Double] = []
    /// Probes that got no 200 within 5 s (503 included).
    var failures = 0
    /// Of the failures, those answered 503.
    var refused = 0
  }

  private let port: Int
  private let lock = NSLock()
  private var results = Results()
  private var answeredAt: [Date] = []
  private var stopped = false
  private let finished = DispatchSemaphore(value: 0)

  init(port: Int) { self.port = port }

  func start() {
    Thread { [self] in
      while !lock.withLock({ stopped }) {
        let started = Date()
        var status: Int?
        if let descriptor = try? LoopbackSocket.connect(port: port) {
          if LoopbackSocket.send(descriptor, "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"),
            let answer = LoopbackSocket.readToEnd(descriptor, limit: 5)
          {
            status = LoopbackSocket.status(of: answer)
          }
          close(descriptor)
        }
        let latency = Date().timeIntervalSince(started)
        lock.withLock {
          if status == 200 {
            results.latencies.append(latency)
            answeredAt.append(Date())
          } else {
            results.failures += 1
            if status == 503 { results.refused += 1 }
          }
        }
        Thread.sleep(forTimeInterval: max(0, 0.1 - latency))
      }
      finished.signal()
    }.start()
  }

  /// The results since the last take.
  func take() -> Results {
    lock.withLock {
      defer { results = Results() }
      return results
    }
  }

  /// Seconds from `moment` to the first 200 after it, waiting at most `limit` seconds.
  func firstAnswer(after moment: Date, limit: TimeInterval) -> Double? {
    let deadline = Date().addingTimeInterval(limit)
    while Date() < deadline {
      if let first = lock.withLock({ answeredAt.first { $0 > moment } }) { return first.timeIntervalSince(moment) }
      Thread.sleep(forTimeInterval: 0.01)
    }
    return nil
  }

  func stop() {
    lock.withLock { stopped = true }
    finished.wait()
  }
}

/// What the activation clients got.
final class Acknowledged: @unchecked Sendable {
  private let lock = NSLock()
  private var set: Set<String> = []

  func add(_ fingerprint: String) { lock.withLock { _ = set.insert(fingerprint) } }
  var fingerprints: Set<String> { lock.withLock { set } }
  var count: Int { lock.withLock { set.count } }
}

/// Clients that activate one after the other. With `machines`, each client
/// keeps its connection and asks for machines of that pool again and again
/// (most are activated again); without, each request is a new machine on a
/// new connection, as `license activate` does.
final class ActivationLoad: @unchecked Sendable {
  let acknowledged = Acknowledged()
  private let port: Int
  private let clients: Int
  private let machines: Int?
  private let lock = NSLock()
  private var answered = 0
  private var stopped = false
  private let group = DispatchGroup()

  init(port: Int, clients: Int, machines: Int?) {
    self.port = port
    self.clients = clients
    self.machines = machines
  }

  var completed: Int { lock.withLock { answered } }

  func start(until end: Date) {
    for client in 0..<clients {
      group.enter()
      Thread { [self] in
        defer { group.leave() }
        var descriptor: Int32?
        // At most 200,000 requests a client: a bound in count besides the one in time.
        for request in 0..<200_000 where Date() < end && !lock.withLock({ stopped }) {
          let number = machines.map { (client * 7919 + request) % $0 } ?? (client << 20 | request)
          let fingerprint = String(format: "%032x", number + (machines == nil ? 1 << 40 : 0))
          let body = #"{"eid":"BENCH-1","product":"workbench","fingerprint":"\#(fingerprint)","container_mode":false}"#
          let keepAlive = machines != nil
          if descriptor == nil { descriptor = try? LoopbackSocket.connect(port: port) }
          guard let open = descriptor else {
            Thread.sleep(forTimeInterval: 0.01)
            continue
          }
          let request =
            "POST /v1/activate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\(keepAlive ? "" : "Connection: close\r\n")\r\n\(body)"
          var status: Int?
          if LoopbackSocket.send(open, request) {
            if keepAlive {
              status = LoopbackSocket.readResponse(open, limit: 30).flatMap(LoopbackSocket.status(of:))
            } else {
              status = LoopbackSocket.readToEnd(open, limit: 30).flatMap(LoopbackSocket.status(of:))
            }
          }
          if status == 200 {
            acknowledged.add(fingerprint)
            lock.withLock { answered += 1 }
          }
          if !keepAlive || status == nil {
            close(open)
            descriptor = nil
          }
        }
        if let descriptor { close(descriptor) }
      }.start()
    }
  }

  func stopNow() { lock.withLock { stopped = true } }
  func wait() { group.wait() }
}
