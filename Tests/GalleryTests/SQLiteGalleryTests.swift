import Foundation
import Gallery
import TestSupport
import Testing

@Suite struct SQLiteGalleryTests {
  /// A new gallery file in a temporary folder.
  func withGallery(_ body: (SQLiteGallery, String) throws -> Void) throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("gallery.sqlite")
    try body(try SQLiteGallery(path: path), path)
  }

  @Test func groups() throws { try withGallery { store, _ in try GalleryContract.groups(store) } }
  @Test func enrollment() throws { try withGallery { store, _ in try GalleryContract.enrollment(store) } }
  @Test func editing() throws { try withGallery { store, _ in try GalleryContract.editing(store) } }
  @Test func revisions() throws { try withGallery { store, _ in try GalleryContract.revisions(store) } }
  @Test func search() throws {
    try withGallery { store, path in try GalleryContract.search(store, other: try SQLiteGallery(path: path)) }
  }

  @Test func anExistingGalleryIsRequiredWhenAsked() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    #expect(throws: GalleryError.self) { try SQLiteGallery(path: folder.file("none.sqlite"), create: false) }
    #expect(!FileManager.default.fileExists(atPath: folder.file("none.sqlite")))
  }

  @Test func aFileThatIsNotAGalleryIsRefused() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = try folder.write("notes.sqlite", String(repeating: "not a database\n", count: 200))
    #expect {
      try SQLiteGallery(path: path)
    } throws: {
      let error = $0 as? GalleryError
      return error?.kind == .unavailable && error?.message.hasPrefix(path) == true
    }
  }
}
