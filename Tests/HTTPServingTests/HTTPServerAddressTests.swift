import HTTPServing
import Testing

@Suite struct HTTPServerAddressTests {
  @Test func loopbackIsTheLoopbackAddressesAndLocalhost() {
    for host in ["127.0.0.1", "127.255.0.9", "::1", "[::1]", "0:0:0:0:0:0:0:1", "localhost"] {
      #expect(HTTPServerAddress.isLoopback(host), "\(host)")
      #expect(HTTPServerAddress(host: host, port: 80).isLoopback, "\(host)")
    }
  }

  @Test func aNameThatBeginsLikeALoopbackAddressIsNotLoopback() {
    for host in ["127.x.example", "127.0.0.1.example", "0.0.0.0", "10.0.0.1", "::", "[::]", "::2", "128.0.0.1", ""] {
      #expect(!HTTPServerAddress.isLoopback(host), "\(host)")
    }
  }

  @Test func numericHostsAreAddressesNotNames() {
    for host in ["127.0.0.1", "10.0.0.1", "::1", "[::1]", "[fe80::1]"] {
      #expect(HTTPServerAddress.isNumeric(host), "\(host)")
    }
    for host in ["localhost", "127.x.example", "example.org", "[example.org]", ""] {
      #expect(!HTTPServerAddress.isNumeric(host), "\(host)")
    }
  }

  @Test func hostAndPort() {
    #expect(HTTPServerAddress(parsing: "127.0.0.1:8080") == HTTPServerAddress(host: "127.0.0.1", port: 8080))
    #expect(HTTPServerAddress(parsing: "0.0.0.0:0") == HTTPServerAddress(host: "0.0.0.0", port: 0))
    #expect(HTTPServerAddress(parsing: "[::1]:8080") == HTTPServerAddress(host: "::1", port: 8080))
    #expect(HTTPServerAddress(parsing: "example.org:80") == HTTPServerAddress(host: "example.org", port: 80))
    #expect(HTTPServerAddress(parsing: ":8080") == HTTPServerAddress(host: "127.0.0.1", port: 8080))
    #expect(HTTPServerAddress(parsing: "8080") == HTTPServerAddress(host: "127.0.0.1", port: 8080))
    for bad in ["host:port", "example.org", "127.0.0.1:65536", "127.0.0.1:-1", "[]:80", "[::1]", ""] {
      #expect(HTTPServerAddress(parsing: bad) == nil, "\(bad)")
    }
  }

  @Test func aHostAloneTakesTheDefaultPort() {
    #expect(
      HTTPServerAddress(parsing: "example.org", defaultPort: 80) == HTTPServerAddress(host: "example.org", port: 80))
    #expect(HTTPServerAddress(parsing: "127.0.0.1", defaultPort: 80) == HTTPServerAddress(host: "127.0.0.1", port: 80))
    #expect(HTTPServerAddress(parsing: "::1", defaultPort: 80) == HTTPServerAddress(host: "::1", port: 80))
    #expect(HTTPServerAddress(parsing: "[::1]", defaultPort: 80) == HTTPServerAddress(host: "::1", port: 80))
    #expect(HTTPServerAddress(parsing: "[::1]:8080", defaultPort: 80) == HTTPServerAddress(host: "::1", port: 8080))
    #expect(HTTPServerAddress(parsing: "example.org:8080", defaultPort: 80)?.port == 8080)
    #expect(HTTPServerAddress(parsing: "8080", defaultPort: 80) == HTTPServerAddress(host: "127.0.0.1", port: 8080))
    #expect(HTTPServerAddress(parsing: "", defaultPort: 80) == nil)
  }
}
