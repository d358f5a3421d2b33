import Testing

@testable import Preview

/// The Host, Origin and Sec-Fetch-Site checks that keep pages elsewhere
/// from reading or driving a run's preview.
@Suite struct PreviewRequestCheckTests {
  let loopback = PreviewRequestCheck(address: PreviewAddress(port: 0), port: 8080, machineName: "kiosk")
  let anyAddress = PreviewRequestCheck(
    address: PreviewAddress(host: "0.0.0.0", port: 8080), port: 8080, machineName: "kiosk")

  func read(_ check: PreviewRequestCheck, host: String) -> String? {
    check.refusal(host: host, origin: nil, fetchSite: nil, writes: false)
  }

  @Test func onLoopbackOnlyTheLoopbackNamesOfItsOwnPortAreAnswered() {
    for host in ["127.0.0.1:8080", "localhost:8080", "LocalHost:8080", "[::1]:8080"] {
      #expect(read(loopback, host: host) == nil, "\(host)")
    }
    for host in ["rebound.example:8080", "127.0.0.1:9090", "127.0.0.1", "kiosk:8080", ""] {
      #expect(read(loopback, host: host) == "the preview answers only to 127.0.0.1:8080", "\(host)")
    }
  }

  @Test func aLoopbackAddressGivenByNameIsAnsweredByThatName() {
    let check = PreviewRequestCheck(address: PreviewAddress(host: "127.0.0.2", port: 0), port: 7000, machineName: "k")
    #expect(read(check, host: "127.0.0.2:7000") == nil)
    #expect(read(check, host: "127.0.0.2:7001") == "the preview answers only to 127.0.0.2:7000")
  }

  @Test func publiclyTheMachinesAddressesAndNameAreAnsweredAndNoOtherName() {
    for host in ["192.168.1.20:8080", "[fe80::1]:8080", "10.0.0.1", "kiosk:8080", "KIOSK:8080", "localhost:8080"] {
      #expect(read(anyAddress, host: host) == nil, "\(host)")
    }
    #expect(
      read(anyAddress, host: "rebound.example:8080")
        == "the preview answers to this machine's addresses and its name (kiosk), not rebound.example")
  }

  @Test func writesFromAnotherSiteOrOriginAreRefused() {
    let host = "127.0.0.1:8080"
    #expect(
      loopback.refusal(host: host, origin: "http://127.0.0.1:8080", fetchSite: "same-origin", writes: true) == nil)
    // A client that is not a browser sends neither header.
    #expect(loopback.refusal(host: host, origin: nil, fetchSite: nil, writes: true) == nil)
    for site in ["cross-site", "same-site"] {
      #expect(
        loopback.refusal(host: host, origin: nil, fetchSite: site, writes: true)
          == "controls are refused from another site's page")
    }
    #expect(
      loopback.refusal(host: host, origin: "http://evil.example", fetchSite: nil, writes: true)
        == "controls are refused from another origin (http://evil.example)")
    // Another port of this machine is another origin.
    #expect(loopback.refusal(host: host, origin: "http://127.0.0.1:9090", fetchSite: nil, writes: true) != nil)
  }

  @Test func readsDoNotLookAtTheOrigin() {
    #expect(
      loopback.refusal(host: "127.0.0.1:8080", origin: "http://evil.example", fetchSite: "cross-site", writes: false)
        == nil)
  }
}
