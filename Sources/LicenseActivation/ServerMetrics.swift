import Dispatch
import NIOConcurrencyHelpers
import Prometheus

#if canImport(Glibc)
  import Glibc
#endif

/// Why the server closed a connection on its own (``ActivationServerLimits``).
public enum ConnectionTimeout: String, Sendable, CaseIterable {
  /// The request head did not arrive in time.
  case header
  /// The request body did not arrive in time.
  case body
  /// A kept-alive connection stayed without a request.
  case idle
}

/// What happened to the connections of a server so far.
public struct ConnectionStatistics: Sendable, Equatable {
  /// Connections open now, refused ones included while they close.
  public var open = 0
  /// Every connection accepted, refused ones included.
  public var accepted = 0
  /// Connections answered 503 because `--max-connections` were open.
  public var refused = 0
  /// Connections closed by each timeout.
  public var timeouts: [ConnectionTimeout: Int] = [:]

  public init() {}
}

/// The counters behind `GET /v1/metrics` (docs/licensing.md, "Metrics"), in
/// a registry of this server's own rather than the process-wide metrics
/// system, so that several servers in one process (the tests) count apart.
final class ActivationServerMetrics: Sendable {
  static let namespace = "workbench_license_server"
  /// The paths counted by name; any other is counted as `other`, so that a
  /// client cannot make the server keep a series per path it invents.
  static let knownPaths: Set<String> = [
    ActivationProtocol.activatePath, ActivationProtocol.healthPath, ActivationProtocol.metricsPath,
  ]
  /// Every outcome of `POST /v1/activate`: a license issued to a new slot or
  /// again to a machine that holds one, a refusal's reason, or why the
  /// request could not be read or recorded.
  static let activationOutcomes =
    ["issued", "reissued"] + RefusalReason.allCases.map(\.rawValue) + [
      ActivationProblem.malformedRequest, ActivationProblem.tooLarge, ActivationProblem.incompleteRequest,
      ActivationProblem.serverError,
    ]

  let registry: PrometheusCollectorRegistry
  private let openConnections: Gauge
  private let acceptedConnections: Counter
  private let refusedConnections: Counter
  private let malformedRequests: Counter
  private let timeouts: [ConnectionTimeout: Counter]
  private let activations: [String: Counter]

  init() {
    let registry = PrometheusCollectorRegistry()
    self.registry = registry
    openConnections = registry.makeGauge(
      descriptor: Self.name("open_connections", unit: "", "Connections open now."))
    acceptedConnections = registry.makeCounter(
      descriptor: Self.name("connections", unit: "total", "Connections accepted, refused ones included."))
    refusedConnections = registry.makeCounter(
      descriptor: Self.name(
        "refused_connections", unit: "total", "Connections answered 503 because --max-connections were open."))
    malformedRequests = registry.makeCounter(
      descriptor: Self.name(
        "malformed_requests", unit: "total",
        "Connections whose bytes were not a whole HTTP/1.1 request (garbage, or cut short by the client), "
          + "answered 400 and closed."))
    let timeoutName = Self.name("timeouts", unit: "total", "Connections closed by a timeout, by kind.")
    timeouts = Dictionary(
      uniqueKeysWithValues: ConnectionTimeout.allCases.map { kind in
        (kind, registry.makeCounter(descriptor: timeoutName, labels: [("kind", kind.rawValue)]))
      })
    let activationName = Self.name("activations", unit: "total", "Answers to POST /v1/activate, by outcome.")
    activations = Dictionary(
      uniqueKeysWithValues: Self.activationOutcomes.map { outcome in
        (outcome, registry.makeCounter(descriptor: activationName, labels: [("outcome", outcome)]))
      })
  }

  private static func name(_ metric: String, unit: String, _ help: String) -> MetricNameDescriptor {
    MetricNameDescriptor(namespace: namespace, metricName: metric, unitName: unit, helpText: help)
  }

  // Computed: the descriptor is not Sendable, so it cannot be a stored static.
  private static var requestsName: MetricNameDescriptor {
    name("requests", unit: "total", "Requests answered, by path and status.")
  }

  func countRequest(path: String, status: Int) {
    let counted = Self.knownPaths.contains(path) ? path : "other"
    registry.makeCounter(descriptor: Self.requestsName, labels: [("path", counted), ("status", String(status))])
      .increment()
  }

  func countActivation(outcome: String) { activations[outcome]?.increment() }

  func setOpenConnections(_ count: Int) { openConnections.set(Int64(count)) }
  func countAcceptedConnection() { acceptedConnections.increment() }
  func countRefusedConnection() { refusedConnections.increment() }
  func countTimeout(_ kind: ConnectionTimeout) { timeouts[kind]?.increment() }
  func countMalformedRequest() { malformedRequests.increment() }

  /// The Prometheus text format (version 0.0.4) of every metric.
  func text() -> [UInt8] { registry.emitToBuffer() }

  static let contentType = "text/plain; version=0.0.4; charset=utf-8"
}

/// The connections open now, and the limit: every connection is admitted or
/// refused here, from whichever event loop accepted it.
final class ConnectionTracker: Sendable {
  /// What a new connection gets.
  enum Admission: Equatable {
    case admitted
    /// Over the limit: answered 503; `lingers` when it may stay open a
    /// moment so that the answer reaches the client (see ``ConnectionGuardHandler``).
    case refused(lingers: Bool)
  }

  let limit: Int
  let metrics: ActivationServerMetrics
  private let state = NIOLockedValueBox(State())

  private struct State {
    var statistics = ConnectionStatistics()
    /// Admitted connections open now; the limit counts these.
    var admitted = 0
    /// Refused connections still open while their answer goes out.
    var lingering = 0
    /// The most connections open at once since memory was last trimmed.
    var peakSinceTrim = 0
  }

  /// A crowd this large that has left gives its memory back (see `release`).
  static let trimAfterPeak = 256

  init(limit: Int, metrics: ActivationServerMetrics) {
    self.limit = limit
    self.metrics = metrics
  }

  func admit() -> Admission {
    state.withLockedValue { state in
      state.statistics.accepted += 1
      state.statistics.open += 1
      state.peakSinceTrim = max(state.peakSinceTrim, state.statistics.open)
      metrics.countAcceptedConnection()
      metrics.setOpenConnections(state.statistics.open)
      if state.admitted < limit {
        state.admitted += 1
        return .admitted
      }
      state.statistics.refused += 1
      metrics.countRefusedConnection()
      let lingers = state.lingering < ActivationServerLimits.lingeringRefusalLimit
      if lingers { state.lingering += 1 }
      return .refused(lingers: lingers)
    }
  }

  /// A connection `admit` answered with `admission` has closed.
  ///
  /// Once a crowd of connections (slow clients, a burst) has mostly left,
  /// the memory their buffers took stays in glibc's per-thread arenas,
  /// free but not returned: the server stayed at 395 MB after 20,000 slow
  /// clients left. So when the open connections fall to an eighth of a
  /// peak of at least `trimAfterPeak`, the free memory goes back to the
  /// system (malloc_trim), off the event loops.
  func release(_ admission: Admission) {
    let trim = state.withLockedValue { state in
      state.statistics.open -= 1
      switch admission {
      case .admitted: state.admitted -= 1
      case .refused(lingers: true): state.lingering -= 1
      case .refused(lingers: false): break
      }
      metrics.setOpenConnections(state.statistics.open)
      guard state.peakSinceTrim >= Self.trimAfterPeak, state.statistics.open * 8 <= state.peakSinceTrim else {
        return false
      }
      state.peakSinceTrim = state.statistics.open
      return true
    }
    if trim, let trimMemory = Self.mallocTrim { DispatchQueue.global(qos: .utility).async { _ = trimMemory(0) } }
  }

  /// glibc's `malloc_trim`, looked up at run time: Swift's Glibc module
  /// leaves out malloc.h, and another C library may not have it.
  private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
    #if canImport(Glibc)
      guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
      return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    #else
      return nil
    #endif
  }()

  func timedOut(_ kind: ConnectionTimeout) {
    state.withLockedValue { state in
      state.statistics.timeouts[kind, default: 0] += 1
      metrics.countTimeout(kind)
    }
  }

  var statistics: ConnectionStatistics { state.withLockedValue { $0.statistics } }
}
