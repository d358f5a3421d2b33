import Foundation

/// A loopback port nothing listens on now: bound to port 0, read, closed.
/// For a server a test starts on it, or for a client that must find nobody.
public func freeLoopbackPort() throws -> Int {
  let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  guard socket >= 0 else { throw LoopbackPortError() }
  defer { close(socket) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  address.sin_port = 0
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  let bound = withUnsafeMutablePointer(to: &address) { pointer in
    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
    }
  }
  guard bound else { throw LoopbackPortError() }
  return Int(UInt16(bigEndian: address.sin_port))
}

public struct LoopbackPortError: Error, CustomStringConvertible {
  public var description: String { "cannot bind a loopback port" }
}
