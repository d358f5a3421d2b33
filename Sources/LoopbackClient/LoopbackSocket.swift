import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Blocking TCP on 127.0.0.1, a descriptor at a time, with a bound on every
/// wait: for clients that must send exactly the bytes an HTTP client would
/// not (half a request, one header at a time, garbage) or hold thousands of
/// connections at once.
public enum LoopbackSocket {
  /// A socket connected to 127.0.0.1:`port`.
  public static func connect(port: Int) throws -> Int32 {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
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
      let failure = errno
      Glibc.close(descriptor)
      throw POSIXError(POSIXErrorCode(rawValue: failure) ?? .ECONNREFUSED)
    }
    return descriptor
  }

  /// Sends `bytes`; false when the peer has closed the connection.
  public static func send(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
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

  public static func send(_ descriptor: Int32, _ text: String) -> Bool { send(descriptor, Array(text.utf8)) }

  /// What the peer sent until it closed the connection, or until `limit`
  /// seconds passed; `closed` says which.
  public static func readUntilClosed(_ descriptor: Int32, limit: TimeInterval) -> (bytes: [UInt8], closed: Bool) {
    var received: [UInt8] = []
    let deadline = Date().addingTimeInterval(limit)
    var buffer = [UInt8](repeating: 0, count: 8192)
    while true {
      let left = deadline.timeIntervalSinceNow
      guard left > 0 else { return (received, false) }
      var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      let ready = poll(&poller, 1, Int32(min(left, 1) * 1000) + 1)
      if ready < 0 && errno == EINTR { continue }
      guard ready > 0 else { continue }
      let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      if count < 0 && errno == EINTR { continue }
      // 0 is the peer's FIN; an error (a reset) closes as well.
      guard count > 0 else { return (received, true) }
      received += buffer[..<count]
    }
  }

  /// Everything until the peer closes, or nil when it has not closed after
  /// `limit` seconds.
  public static func readToEnd(_ descriptor: Int32, limit: TimeInterval) -> [UInt8]? {
    let read = readUntilClosed(descriptor, limit: limit)
    return read.closed ? read.bytes : nil
  }

  /// One whole answer of a server that keeps the connection open: the head
  /// and `Content-Length` bytes of body; nil when it did not come within
  /// `limit` seconds or the connection closed first.
  public static func readResponse(_ descriptor: Int32, limit: TimeInterval) -> [UInt8]? {
    var received: [UInt8] = []
    let deadline = Date().addingTimeInterval(limit)
    var buffer = [UInt8](repeating: 0, count: 8192)
    let separator = Array("\r\n\r\n".utf8)
    while deadline.timeIntervalSinceNow > 0 {
      if let headEnd = find(separator, in: received) {
        let head = String(decoding: received[..<headEnd], as: UTF8.self).lowercased()
        let length =
          head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
          .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        if received.count >= headEnd + separator.count + length { return received }
      }
      var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      guard poll(&poller, 1, 100) > 0 else { continue }
      let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      guard count > 0 else { return nil }
      received += buffer[..<count]
    }
    return nil
  }

  /// The status of an HTTP/1.1 answer.
  public static func status(of answer: [UInt8]) -> Int? {
    let text = String(decoding: answer.prefix(12), as: UTF8.self)
    guard text.hasPrefix("HTTP/1.1 ") else { return nil }
    return Int(text.dropFirst(9).prefix(3))
  }

  /// Where `needle` begins in `haystack`.
  public static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
    guard haystack.count >= needle.count else { return nil }
    return (0...(haystack.count - needle.count)).first { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
  }
}
