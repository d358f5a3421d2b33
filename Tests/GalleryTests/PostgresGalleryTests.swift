import Foundation
import Gallery
import TestSupport
import Testing

/// The same contract as the SQLite gallery, against a throwaway PostgreSQL
/// server (scripts/install-test-deps installs it; never skipped).
@Suite(.serialized) struct PostgresGalleryTests {
  func withGallery(_ body: (PostgresGallery, String) throws -> Void) throws {
    let url = try PostgresTestServer.shared().database()
    try body(try PostgresGallery(url: url), url)
  }

  @Test func groups() throws { try withGallery { store, _ in try GalleryContract.groups(store) } }
  @Test func enrollment() throws { try withGallery { store, _ in try GalleryContract.enrollment(store) } }
  @Test func editing() throws { try withGallery { store, _ in try GalleryContract.editing(store) } }
  @Test func revisions() throws { try withGallery { store, _ in try GalleryContract.revisions(store) } }
  @Test func search() throws {
    try withGallery { store, url in try GalleryContract.search(store, other: try PostgresGallery(url: url)) }
  }

  @Test func twoConnectionsOpeningANewDatabaseAtOnceBothWork() throws {
    let url = try PostgresTestServer.shared().database()
    let results = UnsafeSendableBox<[Bool]>([false, false])
    DispatchQueue.concurrentPerform(iterations: 2) { index in
      let opened = (try? PostgresGallery(url: url)) != nil
      results.lock.withLock { results.value[index] = opened }
    }
    #expect(results.value == [true, true])
  }

  /// sslmode and sslrootcert as libpq reads them, against a server whose
  /// certificate is made at test time for the name localhost.
  @Test func theConnectionIsEncryptedAsSslmodeSays() throws {
    let server = try PostgresTestServer.sharedTLS()
    let authority = try #require(server.certificate)
    let url = try server.database()
    let byName = url.replacingOccurrences(of: "@127.0.0.1:", with: "@localhost:")
    func refusal(_ url: String) -> String? {
      do {
        _ = try PostgresGallery(url: url)
        return nil
      } catch {
        return error.kind == .unavailable ? error.message : "not gallery_unavailable: \(error)"
      }
    }
    // The name the certificate gives, signed by the authority given: checked and encrypted.
    #expect(try PostgresGallery(url: byName + "?sslmode=verify-full&sslrootcert=" + authority).connectionIsEncrypted())
    #expect(try PostgresGallery(url: url + "?sslmode=verify-ca&sslrootcert=" + authority).connectionIsEncrypted())
    // The default, prefer: encrypted when the server offers TLS.
    #expect(try PostgresGallery(url: url).connectionIsEncrypted())
    #expect(try PostgresGallery(url: url + "?sslmode=require").connectionIsEncrypted())
    #expect(try !PostgresGallery(url: url + "?sslmode=disable").connectionIsEncrypted())
    // An address the certificate does not name.
    let wrongName = try #require(refusal(url + "?sslmode=verify-full&sslrootcert=" + authority))
    #expect(wrongName.contains("sslmode=verify-full"), "\(wrongName)")
    #expect(try #require(refusal(byName + "?sslmode=verify-full")).contains("needs sslrootcert"))
    #expect(try #require(refusal(url + "?sslmode=sometimes")).contains("sslmode=sometimes"))

    // A server without TLS: prefer goes on in clear, require and the checks refuse, naming the mode.
    let plain = try PostgresTestServer.shared().database()
    #expect(try !PostgresGallery(url: plain).connectionIsEncrypted())
    for mode in ["require", "verify-ca"] {
      let refused = try #require(refusal(plain + "?sslmode=\(mode)&sslrootcert=" + authority))
      #expect(refused.contains("does not offer TLS") && refused.contains("sslmode=\(mode)"), "\(refused)")
    }
  }

  @Test func aServerThatIsNotThereIsGalleryUnavailable() throws {
    #expect {
      try PostgresGallery(url: "postgres://nobody@127.0.0.1:1/none")
    } throws: {
      let error = $0 as? GalleryError
      return error?.kind == .unavailable && error?.message.contains("cannot connect") == true
    }
    #expect { try PostgresGallery(url: "postgres://") } throws: { ($0 as? GalleryError)?.kind == .unavailable }
  }
}

final class UnsafeSendableBox<T>: @unchecked Sendable {
  var value: T
  let lock = NSLock()
  init(_ value: T) { self.value = value }
}
