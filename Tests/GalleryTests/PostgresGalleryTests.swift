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
