/// Which requests the preview answers: a request for a host name it does
/// not answer to (a page elsewhere rebinding its name to this address) and a
/// write from another origin or site (a page elsewhere posting to this one)
/// are refused. Made of the request's headers only, apart from the server.
struct PreviewRequestCheck {
  let address: PreviewAddress
  /// The port the server listens on (the free one it got for port 0).
  let port: Int
  /// This machine's host name, lower case.
  let machineName: String

  /// Why the request is refused (403 Forbidden), or nil when it is answered.
  /// `host` is the request's authority or Host header, `origin` and
  /// `fetchSite` its Origin and Sec-Fetch-Site headers.
  func refusal(host: String, origin: String?, fetchSite: String?, writes: Bool) -> String? {
    if address.isLoopback {
      let allowed = ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)", "\(address.host):\(port)"]
      guard allowed.contains(host.lowercased()) else {
        return "the preview answers only to \(address.host):\(port)"
      }
    } else {
      // A name other than this machine's may be one a page elsewhere rebound to this address.
      let name = host.lastIndex(of: ":").map { String(host[..<$0]) } ?? host
      guard PreviewAddress.isNumeric(name) || name.lowercased() == machineName || name.lowercased() == "localhost"
      else {
        return "the preview answers to this machine's addresses and its name (\(machineName)), not \(name)"
      }
    }
    guard writes else { return nil }
    if let fetchSite, fetchSite == "cross-site" || fetchSite == "same-site" {
      return "controls are refused from another site's page"
    }
    if let origin, origin != "http://" + host {
      return "controls are refused from another origin (\(origin))"
    }
    return nil
  }
}
