import Foundation

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
  let slow = SlowServerClients(.head, port: port, count: slowClients, interval: slowHeaderInterval)
  slow.start(until: end)
  let slowBodies = SlowServerClients(.body, port: port, count: slowBodyClients, interval: slowHeaderInterval)
  slowBodies.start(until: end)
  let idle = SlowServerClients(.idle, port: port, count: idleClients, interval: slowHeaderInterval)
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
        percentile(latencies, 0.5, ifEmpty: 0) * 1000, (latencies.last ?? 0) * 1000,
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

struct BenchFailure: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
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

private func prometheusSamples(_ text: String) -> [String: Double] {
  var samples: [String: Double] = [:]
  for line in text.split(separator: "\n") where !line.hasPrefix("#") {
    guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
    samples[String(line[..<space])] = value
  }
  return samples
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
