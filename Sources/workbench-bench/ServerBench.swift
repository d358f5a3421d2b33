import Foundation
import Randomness

#if canImport(Glibc)
  import Glibc
#endif

// The activation server under abuse (`scripts/bench server`): the built
// `workbench license serve` on loopback, loaded for a bounded time by many
// concurrent activations, thousands of slow clients (a request line, then a
// header every few seconds), garbage, and a burst over the connection limit,
// while /v1/health is asked every 100 ms. Then the server is killed with
// SIGKILL during activations, and its state file checked and started again.
//
// BENCH_SERVER_SECONDS (default 20) is the length of the main load,
// BENCH_SLOW_CLIENTS (default 3000) the slow clients.

/// The server's limits in this run; the slow clients must fit under the
/// connection limit for health to be answered throughout the main load.
private let maximumConnections = 4096
private let timeoutSeconds = 5
private let slowHeaderInterval = 2.0
private let activationClients = 64
private let activationMachines = 1000
private let garbageClients = 4
private let slowBodyClients = 100
private let idleClients = 100
private let burstOverLimit = 500

func runServerBenchmarks() throws {
  let environment = ProcessInfo.processInfo.environment
  let loadSeconds = Double(environment["BENCH_SERVER_SECONDS"] ?? "") ?? 20
  let slowClients = Int(environment["BENCH_SLOW_CLIENTS"] ?? "") ?? 3000
  guard let binary = workbenchBinary() else {
    print("server: skipped: the workbench binary is not beside workbench-bench (swift build --product workbench)")
    return
  }
  raiseOpenFileLimit(to: slowClients + maximumConnections + burstOverLimit + 512)
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent("workbench-server-bench-\(getpid())").path
  try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: folder) }
  let keygen = try runToEnd(binary, ["license", "keygen", "--out", folder + "/keys"])
  guard keygen == 0 else { throw BenchFailure("workbench license keygen failed (exit \(keygen))") }
  let state = folder + "/activations.json"
  let arguments = [
    "license", "serve", "--key", folder + "/keys/private.key.json", "--product", "workbench", "--allow",
    "BENCH-1:1000000", "--port", "0", "--state", state, "--max-connections", String(maximumConnections),
    "--header-timeout", String(timeoutSeconds), "--body-timeout", String(timeoutSeconds), "--idle-timeout",
    String(timeoutSeconds),
  ]
  var server = try ServerProcess(binary: binary, arguments: arguments, log: folder + "/server-1.log")
  defer { server.kill() }
  let port = server.port

  print("Activation server under abuse, on loopback (scripts/bench server)")
  print(
    "server: workbench "
      + arguments.map { $0.hasPrefix(folder) ? "TMP" + $0.dropFirst(folder.count) : $0 }.joined(separator: " ")
      + (server.pinned ? " (on CPU 1, the clients on CPU 0)" : ""))
  Thread.sleep(forTimeInterval: 1)
  let before = server.usage()

  // The main load: activations, slow clients and garbage together, for a bounded time.
  let health = HealthProbe(port: port)
  health.start()
  let sampler = UsageSampler(server: server)
  sampler.start()
  let started = Date()
  let end = started.addingTimeInterval(loadSeconds)
  let activations = ActivationLoad(port: port, clients: activationClients, machines: activationMachines)
  activations.start(until: end)
  let slow = SlowClients(.head, port: port, count: slowClients, interval: slowHeaderInterval)
  slow.start(until: end)
  let slowBodies = SlowClients(.body, port: port, count: slowBodyClients, interval: slowHeaderInterval)
  slowBodies.start(until: end)
  let idle = SlowClients(.idle, port: port, count: idleClients, interval: slowHeaderInterval)
  idle.start(until: end)
  let garbage = GarbageLoad(port: port, clients: garbageClients)
  garbage.start(until: end)
  activations.wait()
  garbage.wait()
  slow.wait()
  slowBodies.wait()
  idle.wait()
  let loadElapsed = Date().timeIntervalSince(started)
  let underLoad = health.take()
  let duringLoad = sampler.take()

  // Over the limit: idle connections up to the limit and beyond; the ones
  // beyond are answered 503. Health is refused too while they hold every slot.
  let burst = Burst(port: port, count: maximumConnections + burstOverLimit)
  burst.openAll(settle: 2)
  let duringBurst = health.take()
  let freedAt = Date()
  burst.closeAll()
  let recoveredAfter = health.firstAnswer(after: freedAt, limit: 30)

  // Everything gone: the server's memory and descriptors once it is idle again.
  Thread.sleep(forTimeInterval: Double(timeoutSeconds) + 2)
  health.stop()
  let afterBurst = sampler.take()
  sampler.stop()
  let after = server.usage()
  let metrics = httpGet(port: port, path: "/v1/metrics").map { prometheusSamples($0) } ?? [:]

  // SIGKILL in the middle of activations of new machines.
  let killLoad = ActivationLoad(port: port, clients: 16, machines: nil)
  killLoad.start(until: Date().addingTimeInterval(60))
  let killDeadline = Date().addingTimeInterval(30)
  while killLoad.acknowledged.count < 200 && Date() < killDeadline { Thread.sleep(forTimeInterval: 0.01) }
  server.kill()
  killLoad.stopNow()
  killLoad.wait()
  let consistency = checkState(state, acknowledged: killLoad.acknowledged.fingerprints)
  var restart = "did not start"
  if let again = try? ServerProcess(binary: binary, arguments: arguments, log: folder + "/server-2.log") {
    server = again
    let answer = httpGet(port: again.port, path: "/v1/health")
    let used = again.output.split(separator: "\n").first { $0.hasPrefix("allowed: ") } ?? "no 'allowed' line"
    restart = (answer?.contains(#""status":"ok""#) == true ? "health ok, " : "health failed, ") + used
  }

  let latencies = underLoad.latencies.sorted()
  let outcomes = metrics.filter { $0.key.hasPrefix(metricPrefix + "activations_total") && $0.value > 0 }
    .map { "\(label($0.key)) \(Int($0.value))" }.sorted()
  func timeouts(_ kind: String) -> Int { Int(metrics[metricPrefix + "timeouts_total{kind=\"\(kind)\"}"] ?? 0) }
  let rows: [(String, String)] = [
    (
      "load",
      String(
        format: "%.0f s: %d activation clients (keep-alive, %d machines), %d slow clients (a header every %.0f s), "
          + "%d slow bodies (a byte every %.0f s), %d idle keep-alive clients, %d garbage clients", loadElapsed,
        activationClients, activationMachines, slowClients, slowHeaderInterval, slowBodyClients, slowHeaderInterval,
        idleClients, garbageClients)
    ),
    (
      "health under load",
      String(
        format: "%d probes every 100 ms: %d answered 200, %d not; latency median %.1f ms, max %.1f ms (%@)",
        underLoad.latencies.count + underLoad.failures, underLoad.latencies.count, underLoad.failures,
        percentile(latencies, 0.5) * 1000, (latencies.last ?? 0) * 1000,
        (latencies.last ?? 99) < 1 && underLoad.failures == 0 ? "every one within a second" : "NOT all within a second")
    ),
    (
      "activations",
      String(
        format: "%d answered 200 in %.1f s: %.0f/s (%@)", activations.completed, loadElapsed,
        Double(activations.completed) / loadElapsed, outcomes.joined(separator: ", "))
    ),
    ("slow heads", slow.summary),
    ("slow bodies", slowBodies.summary),
    ("idle keep-alives", idle.summary),
    (
      "garbage",
      "\(garbage.connections) connections of random bytes: \(garbage.answered400) answered 400, "
        + "\(garbage.closedOtherwise) closed otherwise"
    ),
    (
      "over the limit",
      "\(burst.opened) idle connections opened at once: \(burst.refused) refused with 503 (reason "
        + "too_many_connections); health meanwhile: \(duringBurst.refused) refused with 503, "
        + "\(duringBurst.latencies.count) answered 200, \(duringBurst.failures - duringBurst.refused) failed otherwise; "
        + (recoveredAfter.map { String(format: "answered 200 again %.0f ms after the slots were freed", $0 * 1000) }
          ?? "NOT answered again within 30 s")
    ),
    (
      "server counted",
      "refused \(Int(metrics[metricPrefix + "refused_connections_total"] ?? 0)), timeouts header "
        + "\(timeouts("header")), body \(timeouts("body")), idle \(timeouts("idle")), malformed "
        + "\(Int(metrics[metricPrefix + "malformed_requests_total"] ?? 0)), connections "
        + "\(Int(metrics[metricPrefix + "connections_total"] ?? 0)) (/v1/metrics)"
    ),
    (
      "server open fds",
      "before \(before.descriptors), during the load max \(duringLoad.maxDescriptors), during the burst max "
        + "\(afterBurst.maxDescriptors), after \(after.descriptors)"
    ),
    (
      "server RSS",
      String(
        format: "before %.1f MB, during the load max %.1f MB, during the burst max %.1f MB, after %.1f MB",
        before.megabytes, duringLoad.maxMegabytes, afterBurst.maxMegabytes, after.megabytes)
    ),
    ("SIGKILL mid-load", consistency + "; restarted: " + restart),
  ]
  let width = rows.map(\.0.count).max() ?? 0
  for (name, value) in rows { print(name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + value) }
}

private let metricPrefix = "workbench_license_server_"

private func label(_ series: String) -> String {
  guard let open = series.firstIndex(of: "\""), let close = series.lastIndex(of: "\""), open < close else {
    return series
  }
  return String(series[series.index(after: open)..<close])
}

private struct BenchFailure: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

private func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
  guard !sorted.isEmpty else { return 0 }
  return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction + 0.5))]
}

/// `workbench` beside this benchmark's binary (the same build).
private func workbenchBinary() -> String? {
  let own = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
  let candidate = own.deletingLastPathComponent().appendingPathComponent("workbench").path
  return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
}

private func runToEnd(_ binary: String, _ arguments: [String]) throws -> Int32 {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: binary)
  process.arguments = arguments
  process.standardOutput = FileHandle.nullDevice
  process.standardError = FileHandle.nullDevice
  try process.run()
  process.waitUntilExit()
  return process.terminationStatus
}

/// The clients of this benchmark hold thousands of sockets at once.
private func raiseOpenFileLimit(to wanted: Int) {
  var limit = rlimit()
  guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
  let target = min(rlim_t(wanted), limit.rlim_max)
  if limit.rlim_cur < target {
    limit.rlim_cur = target
    _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
  }
  _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
  if limit.rlim_cur < rlim_t(wanted) {
    print("note: the open-file limit is \(limit.rlim_cur) (hard \(limit.rlim_max)); some clients may fail to connect")
  }
}

// MARK: - The server process

/// `workbench license serve` as a child process, its output in a file.
private struct ServerProcess {
  let process: Process
  let port: Int
  let logPath: String
  /// On a CPU of its own (taskset), apart from the clients.
  let pinned: Bool

  init(binary: String, arguments: [String], log: String) throws {
    logPath = log
    _ = FileManager.default.createFile(atPath: log, contents: nil)
    let process = Process()
    // scripts/bench pins this benchmark to CPU 0; the server gets CPU 1
    // when there is one, as it would have a machine of its own.
    let taskset = "/usr/bin/taskset"
    pinned = ProcessInfo.processInfo.activeProcessorCount > 1 && FileManager.default.isExecutableFile(atPath: taskset)
    if pinned {
      process.executableURL = URL(fileURLWithPath: taskset)
      process.arguments = ["-c", "1", binary] + arguments
    } else {
      process.executableURL = URL(fileURLWithPath: binary)
      process.arguments = arguments
    }
    process.standardOutput = FileHandle(forWritingAtPath: log)
    process.standardError = FileHandle(forWritingAtPath: log)
    try process.run()
    self.process = process
    let deadline = Date().addingTimeInterval(60)
    var found: Int?
    while found == nil && Date() < deadline && process.isRunning {
      let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
      if let line = text.split(separator: "\n").first(where: { $0.contains("listening on http://") }),
        let number = line.split(separator: ":").last.flatMap({ Int($0.prefix { $0.isNumber }) })
      {
        found = number
      } else {
        Thread.sleep(forTimeInterval: 0.05)
      }
    }
    guard let found else {
      if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
      throw BenchFailure("the server did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
    }
    port = found
  }

  var output: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

  func kill() {
    guard process.isRunning else { return }
    Glibc.kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  struct Usage {
    var descriptors: Int
    var megabytes: Double
  }

  /// Open descriptors and resident memory, from /proc.
  func usage() -> Usage {
    let pid = process.processIdentifier
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    let kilobytes =
      status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
      .flatMap { Double($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
    return Usage(descriptors: descriptors, megabytes: kilobytes / 1024)
  }
}

/// The server's descriptors and memory every 250 ms, keeping the largest.
private final class UsageSampler: @unchecked Sendable {
  struct Peak {
    var maxDescriptors = 0
    var maxMegabytes = 0.0
  }

  private let server: ServerProcess
  private let lock = NSLock()
  private var peak = Peak()
  private var stopped = false

  init(server: ServerProcess) { self.server = server }

  func start() {
    Thread { [self] in
      while !lock.withLock({ stopped }) {
        let usage = server.usage()
        lock.withLock {
          peak.maxDescriptors = max(peak.maxDescriptors, usage.descriptors)
          peak.maxMegabytes = max(peak.maxMegabytes, usage.megabytes)
        }
        Thread.sleep(forTimeInterval: 0.25)
      }
    }.start()
  }

  /// The peak since the last take.
  func take() -> Peak {
    lock.withLock {
      defer { peak = Peak() }
      return peak
    }
  }

  func stop() { lock.withLock { stopped = true } }
}

// MARK: - Sockets

private enum Socket {
  /// A connected socket to 127.0.0.1:`port`, or nil.
  static func connect(port: Int) -> Int32? {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      close(descriptor)
      return nil
    }
    return descriptor
  }

  static func send(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
    var sent = 0
    while sent < bytes.count {
      let count = bytes[sent...].withUnsafeBytes {
        Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return false }
      sent += count
    }
    return true
  }

  static func send(_ descriptor: Int32, _ text: String) -> Bool { send(descriptor, Array(text.utf8)) }

  /// Everything until the peer closes, or nil after `limit` seconds.
  static func readToEnd(_ descriptor: Int32, limit: TimeInterval) -> [UInt8]? {
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 8192)
    let deadline = Date().addingTimeInterval(limit)
    while true {
      let left = deadline.timeIntervalSinceNow
      guard left > 0 else { return nil }
      var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      let ready = poll(&poller, 1, Int32(left * 1000) + 1)
      if ready <= 0 { continue }
      let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return received }
      received += buffer[..<count]
    }
  }

  /// One answer on a kept-alive connection: its status, or nil when the
  /// connection closed or nothing whole came within `limit` seconds.
  static func readResponse(_ descriptor: Int32, limit: TimeInterval) -> Int? {
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 8192)
    let deadline = Date().addingTimeInterval(limit)
    let separator = Array("\r\n\r\n".utf8)
    while deadline.timeIntervalSinceNow > 0 {
      if let headEnd = find(separator, in: received) {
        let head = String(decoding: received[..<headEnd], as: UTF8.self).lowercased()
        let length =
          head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
          .flatMap { Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) } ?? 0
        if received.count >= headEnd + 4 + length { return Int(head.dropFirst(9).prefix(3)) }
      }
      var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      guard poll(&poller, 1, 100) > 0 else { continue }
      let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      guard count > 0 else { return nil }
      received += buffer[..<count]
    }
    return nil
  }

  static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
    guard haystack.count >= needle.count else { return nil }
    return (0...(haystack.count - needle.count)).first { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
  }

  static func status(of answer: [UInt8]) -> Int? {
    let text = String(decoding: answer.prefix(12), as: UTF8.self)
    guard text.hasPrefix("HTTP/1.1 ") else { return nil }
    return Int(text.dropFirst(9).prefix(3))
  }
}

/// GET `path` on a connection of its own; the body, or nil.
private func httpGet(port: Int, path: String) -> String? {
  guard let descriptor = Socket.connect(port: port) else { return nil }
  defer { close(descriptor) }
  guard Socket.send(descriptor, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"),
    let answer = Socket.readToEnd(descriptor, limit: 30), Socket.status(of: answer) == 200
  else { return nil }
  let text = String(decoding: answer, as: UTF8.self)
  return text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) }
}

private func prometheusSamples(_ text: String) -> [String: Double] {
  var samples: [String: Double] = [:]
  for line in text.split(separator: "\n") where !line.hasPrefix("#") {
    guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
    samples[String(line[..<space])] = value
  }
  return samples
}

// MARK: - Clients

/// GET /v1/health every 100 ms on a new connection, timing each answer.
private final class HealthProbe: @unchecked Sendable {
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
        if let descriptor = Socket.connect(port: port) {
          if Socket.send(descriptor, "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"),
            let answer = Socket.readToEnd(descriptor, limit: 5)
          {
            status = Socket.status(of: answer)
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
private final class Acknowledged: @unchecked Sendable {
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
private final class ActivationLoad: @unchecked Sendable {
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
          if descriptor == nil { descriptor = Socket.connect(port: port) }
          guard let open = descriptor else {
            Thread.sleep(forTimeInterval: 0.01)
            continue
          }
          let request =
            "POST /v1/activate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\(keepAlive ? "" : "Connection: close\r\n")\r\n\(body)"
          var status: Int?
          if Socket.send(open, request) {
            if keepAlive {
              status = Socket.readResponse(open, limit: 30)
            } else {
              status = Socket.readToEnd(open, limit: 30).flatMap(Socket.status(of:))
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

/// Clients that hold a connection without finishing a request: each one the
/// server cuts off connects again, until the end.
private final class SlowClients: @unchecked Sendable {
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
        opened, cuts.count, percentile(cuts.sorted(), 0.5), stillOpen)
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
        guard let descriptor = Socket.connect(port: port) else { return nil }
        lock.withLock { opened += 1 }
        let now = Date()
        _ = Socket.send(descriptor, kind.opening)
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
            if read <= 0 || Socket.find(Array("408".utf8), in: Array(buffer[..<max(read, 0)])) != nil {
              lock.withLock { cuts.append(now.timeIntervalSince(client.connected)) }
              close(client.descriptor)
              continue
            }
          }
          if now >= client.nextHeader, let piece = kind.piece(client.headers + 1) {
            client.headers += 1
            if !Socket.send(client.descriptor, piece) {
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
        guard read <= 0 || Socket.find(Array("408".utf8), in: Array(buffer[..<max(read, 0)])) != nil else {
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
private final class GarbageLoad: @unchecked Sendable {
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
          guard let descriptor = Socket.connect(port: port) else { continue }
          var bytes = (0..<random.integer(16...8192)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
          if round % 2 == 1 { bytes = Array("POST /v1/activate HTTP/1.1\r\n".utf8) + bytes }
          _ = Socket.send(descriptor, bytes)
          let answer = Socket.readToEnd(descriptor, limit: 30) ?? []
          close(descriptor)
          lock.withLock {
            total += 1
            if Socket.status(of: answer) == 400 { badRequests += 1 }
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
private final class Burst: @unchecked Sendable {
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
        connected.add((0..<share).compactMap { _ in Socket.connect(port: port) })
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
        if read > 0, Socket.status(of: Array(buffer[..<read])) == 503 { refused += 1 }
        open.remove(poller.fd)
      }
    }
  }

  func closeAll() {
    for descriptor in descriptors { close(descriptor) }
    descriptors = []
  }
}

/// Whether the state file is whole and holds every acknowledged license.
private func checkState(_ path: String, acknowledged: Set<String>) -> String {
  guard let data = FileManager.default.contents(atPath: path),
    let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
    document["workbench_activations"] as? Int == 1,
    let records = document["activations"] as? [[String: Any]]
  else { return "state file NOT readable after the kill" }
  let fingerprints = records.compactMap { $0["fingerprint"] as? String }
  let missing = acknowledged.subtracting(fingerprints)
  let whole = data.last == UInt8(ascii: "\n") && fingerprints.count == records.count
  let unique = Set(fingerprints).count == fingerprints.count
  return "\(acknowledged.count) new licenses acknowledged before the kill, state file "
    + (whole && unique ? "whole" : "NOT whole") + " with \(records.count) activations, "
    + (missing.isEmpty ? "every acknowledged license recorded" : "\(missing.count) acknowledged licenses NOT recorded")
}
