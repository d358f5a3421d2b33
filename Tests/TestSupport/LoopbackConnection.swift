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
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      let failure = errno
      Glibc.close(descriptor)
      throw POSIXError(POSIXErrorCode(rawValue: failure) ?? .ECONNREFUSED)
    }
    self.descriptor = descriptor
  }

  deinit { close() }

  /// Sends `text`; false when the server has closed the connection.
  @discardableResult
  public func send(_ text: String) -> Bool {
    let bytes = Array(text.utf8)
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

  /// What the server sent until it closed the connection, or until
  /// `limit` seconds passed; `closed` says which.
  public func readUntilClosed(limit: TimeInterval) -> (text: String, closed: Bool) {
    var received: [UInt8] = []
    let deadline = Date().addingTimeInterval(limit)
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let left = deadline.timeIntervalSinceNow
      guard left > 0 else { return (String(decoding: received, as: UTF8.self), false) }
      var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      let ready = poll(&poller, 1, Int32(min(left, 1) * 1000) + 1)
      if ready < 0 && errno == EINTR { continue }
      guard ready > 0 else { continue }
      let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      if count < 0 && errno == EINTR { continue }
      // 0 is the server's FIN; an error (a reset) closes as well.
      guard count > 0 else { return (String(decoding: received, as: UTF8.self), true) }
      received += buffer[..<count]
    }
  }

  /// One whole answer of a server that keeps the connection open: the head
  /// and `Content-Length` bytes of body; nil when it did not come within
  /// `limit` seconds or the connection closed first.
  public func readResponse(limit: TimeInterval) -> String? {
    var received: [UInt8] = []
    let deadline = Date().addingTimeInterval(limit)
    var buffer = [UInt8](repeating: 0, count: 4096)
    while deadline.timeIntervalSinceNow > 0 {
      let separator = Array("\r\n\r\n".utf8)
      if let headEnd = received.indices.first(where: { received[$0...].starts(with: separator) }) {
        let head = String(decoding: received[..<headEnd], as: UTF8.self).lowercased()
        let length =
          head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
          .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        if received.count - (headEnd + separator.count) >= length {
          return String(decoding: received, as: UTF8.self)
        }
      }
      var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      let ready = poll(&poller, 1, 100)
      guard ready > 0 else { continue }
      let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      guard count > 0 else { return nil }
      received += buffer[..<count]
    }
    return nil
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
