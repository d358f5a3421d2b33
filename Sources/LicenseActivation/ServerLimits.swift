import Diagnostics
import Foundation
import NIOCore

#if canImport(Glibc)
  import Glibc
#endif

/// What `license serve` allows a client before it closes or refuses the
/// connection, so that slow or abusive clients cannot take every file
/// descriptor or pin memory (docs/licensing.md, "Limits").
///
/// The timeouts follow the request's life on one connection:
///
/// - **header**: the whole request head (request line and headers) must have
///   arrived within this time of the connection being accepted, or, on a
///   kept-alive connection, of the first byte of the next request;
/// - **body**: once the head has arrived, the whole body must follow within
///   this time;
/// - **idle**: a kept-alive connection with no request in progress is closed
///   after this time without a byte from the client.
///
/// The request sizes are the protocol's (``ActivationProtocol/maximumRequestSize``
/// for the body) and Hummingbird's for the head (80 KiB of headers, 1000 fields).
public struct ActivationServerLimits: Sendable, Equatable {
  public var headerTimeout: Duration
  public var bodyTimeout: Duration
  public var idleTimeout: Duration
  /// Connections open at once; one more is answered 503 and closed.
  public var maximumConnections: Int

  public static let defaultHeaderTimeout = Duration.seconds(10)
  public static let defaultBodyTimeout = Duration.seconds(10)
  public static let defaultIdleTimeout = Duration.seconds(15)
  public static let defaultMaximumConnections = 1024

  /// The range every timeout must be in, in seconds.
  public static let timeoutRange = 0.05...3600.0
  public static let connectionRange = 1...1_000_000

  /// Refused connections kept open at once while the 503 reaches the client
  /// (see `ConnectionGuardHandler`); more are closed right after the answer.
  static let lingeringRefusalLimit = 256
  /// How long a refused connection waits for the client to close first.
  static let refusalLinger = TimeAmount.seconds(1)
  /// File descriptors the process needs besides its connections: the
  /// listening socket, standard streams, the state file and its temporary
  /// file, the event loops' epoll and eventfd descriptors, libraries.
  static let descriptorReserve = 64

  public init(
    headerTimeout: Duration = defaultHeaderTimeout, bodyTimeout: Duration = defaultBodyTimeout,
    idleTimeout: Duration = defaultIdleTimeout, maximumConnections: Int = defaultMaximumConnections
  ) {
    self.headerTimeout = headerTimeout
    self.bodyTimeout = bodyTimeout
    self.idleTimeout = idleTimeout
    self.maximumConnections = maximumConnections
  }

  /// `10 s`, `0.5 s`: a timeout as the server's messages write it.
  public static func text(_ duration: Duration) -> String {
    let seconds = duration.inSeconds
    return (seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)) + " s"
  }

  /// The problems of these limits, each naming its option.
  func problems() -> [Diagnostic] {
    var problems: [Diagnostic] = []
    let timeouts = [
      ("--header-timeout", headerTimeout, Self.defaultHeaderTimeout),
      ("--body-timeout", bodyTimeout, Self.defaultBodyTimeout),
      ("--idle-timeout", idleTimeout, Self.defaultIdleTimeout),
    ]
    for (option, value, standard) in timeouts where !Self.timeoutRange.contains(value.inSeconds) {
      problems.append(
        Diagnostic(
          "\(option) must be from \(Self.timeoutRange.lowerBound) to \(Int(Self.timeoutRange.upperBound)) seconds, "
            + "got \(Self.text(value).dropLast(2))",
          help: "give seconds, e.g. \(option) \(Int(standard.inSeconds)) (the default)"))
    }
    if !Self.connectionRange.contains(maximumConnections) {
      problems.append(
        Diagnostic(
          "--max-connections must be from 1 to \(Self.connectionRange.upperBound), got \(maximumConnections)",
          help: "give the connections the server keeps open at once, e.g. --max-connections "
            + "\(Self.defaultMaximumConnections) (the default)"))
    }
    return problems
  }

  /// The file descriptors the server may need at once.
  var descriptorsNeeded: Int { maximumConnections + Self.lingeringRefusalLimit + Self.descriptorReserve }

  /// Raises the soft limit of open files (`ulimit -n`) as far as the
  /// connection limit needs, up to the hard limit; an error when the hard
  /// limit is too low for `--max-connections`.
  func raiseDescriptorLimit() throws(WorkbenchError) {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
    let needed = rlim_t(descriptorsNeeded)
    if limit.rlim_cur >= needed { return }
    if limit.rlim_max >= needed {
      limit.rlim_cur = needed
      if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 { return }
    }
    let allowed = Int(clamping: limit.rlim_max)
    let most = max(allowed - Self.lingeringRefusalLimit - Self.descriptorReserve, 0)
    throw WorkbenchError(
      .usage,
      "--max-connections \(maximumConnections) needs up to \(descriptorsNeeded) open files, but this process may "
        + "open at most \(allowed) (ulimit -n)",
      help: "give --max-connections \(most) or less, or raise the limit of open files (ulimit -Hn) first")
  }
}

extension Duration {
  /// The duration in seconds, with its fraction.
  var inSeconds: Double {
    let parts = components
    return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
  }
}
