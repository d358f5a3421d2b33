import Foundation
import LoopbackClient
import Randomness

#if canImport(Glibc)
  import Glibc
#endif

// The server bench's abusive clients: slow ones, garbage, and a burst over the connection limit.

/// Clients that hold a connection without finishing a request: each one the
/// server cuts off connects again, until the end.
final class SlowServerClients: @unchecked Sendable {
  enum Kind {
    /// A request line, then one header every `interval` seconds.
    case head
    /// A whole head of a 1000-byte body, then one byte every `interval` seconds.
    case body
    /// One whole health request, then nothing: a kept-alive connection left idle.
    case idle

    var opening: String {
      switch self {
      case .head: "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n"
      case .body:
        "POST /v1/activate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          + "Content-Length: 1000\r\n\r\n{"
      case .idle: "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
      }
    }

    func piece(_ number: Int) -> String? {
      switch self {
      case .head: "X-Slow-\(number): \(number)\r\n"
      case .body: " "
      case .idle: nil
      }
    }
  }

  private let kind: Kind
  private let port: Int
  private let count: Int
  private let interval: TimeInterval
  private let lock = NSLock()
  private var opened = 0
  private var cuts: [Double] = []
  private var stillOpen = 0
  private let finished = DispatchSemaphore(value: 0)

  init(_ kind: Kind, port: Int, count: Int, interval: TimeInterval) {
    self.kind = kind
    self.port = port
    self.count = count
    self.interval = interval
  }

  var connections: Int { lock.withLock { opened } }

  /// How many connected, how many the server cut and when, how many were
  /// still open at the end.
  var summary: String {
    lock.withLock {
      String(
        format: "%d connections, %d cut by the server (median %.1f s after connecting), %d still open at the end",
        opened, cuts.count, percentile(cuts, 0.5, ifEmpty: 0), stillOpen)
    }
  }

  private struct Client {
    var descriptor: Int32
    var connected: Date
    var nextHeader: Date
    var headers = 0
  }

  func start(until end: Date) {
    Thread { [self] in
      var clients: [Client] = []
      var buffer = [UInt8](repeating: 0, count: 4096)
      func open() -> Client? {
        guard let descriptor = try? LoopbackSocket.connect(port: port) else { return nil }
        lock.withLock { opened += 1 }
        let now = Date()
        _ = LoopbackSocket.send(descriptor, kind.opening)
        // Spread over the interval, so that the pieces do not all come at once.
        return Client(
          descriptor: descriptor, connected: now, nextHeader: now.addingTimeInterval(.random(in: 0..<interval)))
      }
      while Date() < end {
        // Connect up to `count`, a few hundred at a time so that the rest
        // are watched meanwhile; at most 50 connections per client in all
        // (a bound in count besides the one in time).
        var added = 0
        while clients.count < count && added < 300 && connections < count * 50 && Date() < end,
          let client = open()
        {
          clients.append(client)
          added += 1
        }
        // Which ones the server closed.
        var pollers = clients.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
        _ = poll(&pollers, nfds_t(pollers.count), 100)
        let now = Date()
        var kept: [Client] = []
        kept.reserveCapacity(clients.count)
        for (index, var client) in clients.enumerated() {
          if pollers[index].revents != 0 {
            // The end of the connection, or the header timeout's 408 just
            // before it; the idle clients' 200 comes first and is dropped.
            let read = buffer.withUnsafeMutableBytes { recv(client.descriptor, $0.baseAddress, $0.count, 0) }
            if read <= 0 || LoopbackSocket.find(Array("408".utf8), in: Array(buffer[..<max(read, 0)])) != nil {
              lock.withLock { cuts.append(now.timeIntervalSince(client.connected)) }
              close(client.descriptor)
              continue
            }
          }
          if now >= client.nextHeader, let piece = kind.piece(client.headers + 1) {
            client.headers += 1
            if !LoopbackSocket.send(client.descriptor, piece) {
              lock.withLock { cuts.append(now.timeIntervalSince(client.connected)) }
              close(client.descriptor)
              continue
            }
            client.nextHeader = now.addingTimeInterval(interval)
          }
          kept.append(client)
        }
        clients = kept
      }
      // The clients connect and are cut together, so a whole cohort may be
      // cut just as the load ends: a last look counts those as cut.
      var pollers = clients.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
      _ = poll(&pollers, nfds_t(pollers.count), 500)
      let last = Date()
      clients = zip(clients, pollers).compactMap { client, poller in
        guard poller.revents != 0 else { return client }
        let read = buffer.withUnsafeMutableBytes { recv(client.descriptor, $0.baseAddress, $0.count, 0) }
        guard read <= 0 || LoopbackSocket.find(Array("408".utf8), in: Array(buffer[..<max(read, 0)])) != nil else {
          return client
        }
        lock.withLock { cuts.append(last.timeIntervalSince(client.connected)) }
        close(client.descriptor)
        return nil
      }
      lock.withLock { stillOpen = clients.count }
      // Gone without a word (a reset), as an attacker's clients vanish: a
      // polite close in the middle of a head would count as a malformed request.
      var abort = linger(l_onoff: 1, l_linger: 0)
      for client in clients {
        _ = setsockopt(client.descriptor, SOL_SOCKET, SO_LINGER, &abort, socklen_t(MemoryLayout<linger>.size))
        close(client.descriptor)
      }
      finished.signal()
    }.start()
  }

  func wait() { finished.wait() }
}

/// Clients that send random bytes (some after a real request line) and
/// read what comes back, one connection after the other.
final class GarbageLoad: @unchecked Sendable {
  private let port: Int
  private let clients: Int
  private let lock = NSLock()
  private var total = 0
  private var badRequests = 0
  private let group = DispatchGroup()

  init(port: Int, clients: Int) {
    self.port = port
    self.clients = clients
  }

  var connections: Int { lock.withLock { total } }
  var answered400: Int { lock.withLock { badRequests } }
  var closedOtherwise: Int { lock.withLock { total - badRequests } }

  func start(until end: Date) {
    for client in 0..<clients {
      group.enter()
      Thread { [self] in
        defer { group.leave() }
        var random = SeededRandom(seed: UInt64(client + 1))
        for round in 0..<100_000 where Date() < end {
          guard let descriptor = try? LoopbackSocket.connect(port: port) else { continue }
          var bytes = (0..<random.integer(16...8192)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
          if round % 2 == 1 { bytes = Array("POST /v1/activate HTTP/1.1\r\n".utf8) + bytes }
          _ = LoopbackSocket.send(descriptor, bytes)
          let answer = LoopbackSocket.readToEnd(descriptor, limit: 30) ?? []
          close(descriptor)
          lock.withLock {
            total += 1
            if LoopbackSocket.status(of: answer) == 400 { badRequests += 1 }
          }
          Thread.sleep(forTimeInterval: 0.02)
        }
      }.start()
    }
  }

  func wait() { group.wait() }
}

/// The sockets of the connecting threads.
private final class Connected: @unchecked Sendable {
  private let lock = NSLock()
  private var descriptors: [Int32] = []

  func add(_ more: [Int32]) { lock.withLock { descriptors += more } }
  var all: [Int32] { lock.withLock { descriptors } }
}

/// Many idle connections at once, more than the server's limit.
final class Burst: @unchecked Sendable {
  private let port: Int
  private let count: Int
  private var descriptors: [Int32] = []
  private(set) var opened = 0
  private(set) var refused = 0

  init(port: Int, count: Int) {
    self.port = port
    self.count = count
  }

  /// Opens them all, then reads for `settle` seconds: the ones over the
  /// limit get their 503 and close.
  func openAll(settle: TimeInterval) {
    // Eight connecting threads, so that the burst is open well within the
    // header timeout that would otherwise free slots meanwhile.
    let connected = Connected()
    let group = DispatchGroup()
    let threads = 8
    let port = self.port
    let share = (count + threads - 1) / threads
    for _ in 0..<threads {
      group.enter()
      Thread {
        connected.add((0..<share).compactMap { _ in try? LoopbackSocket.connect(port: port) })
        group.leave()
      }.start()
    }
    group.wait()
    descriptors = connected.all
    opened = descriptors.count
    let deadline = Date().addingTimeInterval(settle)
    var buffer = [UInt8](repeating: 0, count: 4096)
    var open = Set(descriptors)
    while Date() < deadline {
      var pollers = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
      _ = poll(&pollers, nfds_t(pollers.count), 100)
      for poller in pollers where poller.revents != 0 {
        let read = buffer.withUnsafeMutableBytes { recv(poller.fd, $0.baseAddress, $0.count, 0) }
        if read > 0, LoopbackSocket.status(of: Array(buffer[..<read])) == 503 { refused += 1 }
        open.remove(poller.fd)
      }
    }
  }

  func closeAll() {
    for descriptor in descriptors { close(descriptor) }
    descriptors = []
  }
}
