import Diagnostics
import Testing

@testable import Preview

/// `--preview ADDR:PORT`, `:PORT` or `PORT`, and what kind of address it is.
@Suite struct PreviewAddressTests {
  @Test func aPortAloneListensOnLoopback() throws {
    #expect(try PreviewAddress.parse("8080") == PreviewAddress(host: "127.0.0.1", port: 8080))
    #expect(try PreviewAddress.parse(":8080") == PreviewAddress(host: "127.0.0.1", port: 8080))
    #expect(try PreviewAddress.parse("0") == PreviewAddress(host: "127.0.0.1", port: 0))
  }

  @Test func anAddressAndPort() throws {
    #expect(try PreviewAddress.parse("0.0.0.0:9000") == PreviewAddress(host: "0.0.0.0", port: 9000))
    #expect(try PreviewAddress.parse("localhost:65535") == PreviewAddress(host: "localhost", port: 65535))
    // IPv6 in brackets: the port is after the last colon, the brackets are dropped.
    #expect(try PreviewAddress.parse("[::1]:8080") == PreviewAddress(host: "::1", port: 8080))
  }

  @Test(arguments: ["", "abc", "127.0.0.1:", "127.0.0.1:http", "127.0.0.1:65536", "-1", "[]:8080", "8080:"])
  func notAnAddressAndPortIsAUsageError(text: String) throws {
    let error = try #require(throws: WorkbenchError.self) { try PreviewAddress.parse(text) }
    #expect(error.status == .usage)
    #expect(error.diagnostics.map(\.message) == ["--preview \(text): not an address and port"])
    #expect(error.diagnostics.first?.help?.contains("--preview 127.0.0.1:8080") == true)
  }

  @Test(arguments: ["127.0.0.1", "127.8.9.10", "localhost", "::1", "0:0:0:0:0:0:0:1"])
  func loopbackAddresses(host: String) {
    #expect(PreviewAddress(host: host, port: 8080).isLoopback)
  }

  @Test(arguments: ["0.0.0.0", "192.168.1.20", "10.0.0.1", "::", "fe80::1", "kiosk.example", "LOCALHOST.example"])
  func addressesOthersCanReach(host: String) {
    #expect(!PreviewAddress(host: host, port: 8080).isLoopback)
  }

  @Test func literalAddressesAreNumbersNotNames() {
    for literal in ["192.168.1.20", "127.0.0.1", "::1", "[::1]", "[fe80::1]"] {
      #expect(PreviewAddress.isNumeric(literal), "\(literal)")
    }
    for name in ["localhost", "kiosk", "kiosk.example", "192.168.1", "[kiosk]", ""] {
      #expect(!PreviewAddress.isNumeric(name), "\(name)")
    }
  }
}
