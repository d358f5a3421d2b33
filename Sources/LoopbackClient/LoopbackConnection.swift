import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A plain TCP connection to a port on 127.0.0.1, for tests that must send
/// exactly the bytes an HTTP client would not: half a request, one header
/// at a time, garbage. Blocking, with a bound on every wait.
public final class LoopbackConnection {
  public let descriptor: Int32
  private var closed = false

  /// Connects to 127.0.0.1:`port`.
  public init(port: Int) throws {
    descriptor = try LoopbackSocket.connect(port: port)
  }

  deinit { close() }

  /// Sends `text`; false when the server has closed the connection.
  @discardableResult
  public func send(_ text: String) -> Bool { LoopbackSocket.send(descriptor, text) }

  /// What the server sent until it closed the connection, or until
  /// `limit` seconds passed; `closed` says which.
  public func readUntilClosed(limit: TimeInterval) -> (text: String, closed: Bool) {
    let read = LoopbackSocket.readUntilClosed(descriptor, limit: limit)
    return (String(decoding: read.bytes, as: UTF8.self), read.closed)
  }

  /// One whole answer of a server that keeps the connection open: the head
  /// and `Content-Length` bytes of body; nil when it did not come within
  /// `limit` seconds or the connection closed first.
  public func readResponse(limit: TimeInterval) -> String? {
    LoopbackSocket.readResponse(descriptor, limit: limit).map { String(decoding: $0, as: UTF8.self) }
  }

  /// Sends `pieces` one at a time, `interval` seconds apart, as a slow
  /// client would, until the server closes the connection: then what it
  /// answered (perhaps nothing, when the close reset the connection). Nil
  /// when every piece was sent and the connection is still open.
  public func trickle(_ pieces: [String], interval: TimeInterval) -> String? {
    for piece in pieces {
      guard send(piece) else { return readUntilClosed(limit: 10).text }
      var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      if poll(&poller, 1, Int32(interval * 1000)) > 0 { return readUntilClosed(limit: 10).text }
    }
    return nil
  }

  public func close() {
    guard !closed else { return }
    closed = true
    Glibc.close(descriptor)
  }
}
