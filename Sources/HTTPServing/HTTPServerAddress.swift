import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Where an HTTP server listens: a host (a name, or an address written as
/// numbers) and a port, 0 for a free one. Loopback unless said otherwise.
public struct HTTPServerAddress: Sendable, Equatable {
  public static let defaultHost = "127.0.0.1"
  public var host: String
  public var port: Int

  public init(host: String = HTTPServerAddress.defaultHost, port: Int = 0) {
    self.host = host
    self.port = port
  }

  /// `HOST:PORT`, `[V6]:PORT`, `:PORT` or `PORT`; with a `defaultPort`,
  /// `HOST`, `V6` and `[V6]` alone too (then `::1:80` is an address, not a
  /// port: write `[::1]:80`). Nil when it is none of these, or the port is
  /// not from 0 to 65535.
  public init?(parsing text: String, defaultPort: Int? = nil) {
    if let defaultPort, Int(text) == nil {
      let bare = Self.withoutBrackets(text)
      if !text.contains(":") || Self.isIPv6(bare) {
        guard !bare.isEmpty else { return nil }
        self.init(host: bare, port: defaultPort)
        return
      }
    }
    var host = Self.defaultHost
    var portText = Substring(text)
    if let colon = text.lastIndex(of: ":") {
      let head = text[..<colon]
      if !head.isEmpty { host = String(head).trimmingCharacters(in: CharacterSet(charactersIn: "[]")) }
      portText = text[text.index(after: colon)...]
    }
    guard let port = Int(portText), (0...65535).contains(port), !host.isEmpty else { return nil }
    self.init(host: host, port: port)
  }

  /// Only this machine can reach it.
  public var isLoopback: Bool { Self.isLoopback(host) }

  /// Whether `host` is `localhost`, an IPv4 address in 127.0.0.0/8, or the
  /// IPv6 address ::1 in any spelling, bracketed or not. A name is never
  /// taken for an address however it begins: `127.x.example` resolves to
  /// wherever its owner likes.
  public static func isLoopback(_ host: String) -> Bool {
    if host == "localhost" { return true }
    var v4 = in_addr()
    if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
    var v6 = in6_addr()
    guard inet_pton(AF_INET6, withoutBrackets(host), &v6) == 1 else { return false }
    var loopback = in6addr_loopback
    return withUnsafeBytes(of: &v6) { address in withUnsafeBytes(of: &loopback) { address.elementsEqual($0) } }
  }

  /// Whether `host` is an address written as numbers (IPv4, or IPv6 bare or
  /// in brackets), not a name.
  public static func isNumeric(_ host: String) -> Bool {
    let bare = withoutBrackets(host)
    var v4 = in_addr()
    return inet_pton(AF_INET, bare, &v4) == 1 || isIPv6(bare)
  }

  private static func isIPv6(_ text: String) -> Bool {
    var v6 = in6_addr()
    return inet_pton(AF_INET6, text, &v6) == 1
  }

  private static func withoutBrackets(_ host: String) -> String {
    host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
  }
}
