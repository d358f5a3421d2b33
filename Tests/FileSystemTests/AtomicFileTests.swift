import FileSystem
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

private func contents(_ path: String) -> String? {
  FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
}

@Suite struct AtomicFileWholeTests {
  @Test func writesTheWholeFileAndLeavesNoTemporaryFile() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("out.json")
    try AtomicFile.write(Array("{\"a\":1}\n".utf8), to: path)
    #expect(contents(path) == "{\"a\":1}\n")
    #expect(folder.listing == ["out.json"])
  }

  @Test func replacesTheOldFile() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = try folder.write("out.txt", "old")
    try AtomicFile.write(Data("new".utf8), to: path)
    #expect(contents(path) == "new")
    #expect(folder.listing == ["out.txt"])
  }

  @Test func aFailedMoveLeavesTheOldContentAndNoTemporaryFile() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    // A folder that is not empty cannot be renamed over, by root either.
    let kept = try folder.write("out.txt/kept", "old")
    let error = try #require(throws: AtomicFileError.self) {
      try AtomicFile.write(Array("new".utf8), to: folder.file("out.txt"))
    }
    #expect(error.step == .move)
    #expect(contents(kept) == "old")
    #expect(folder.listing == ["out.txt"])
  }

  @Test func aMissingFolderFailsAtCreate() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let error = try #require(throws: AtomicFileError.self) {
      try AtomicFile.write(Array("x".utf8), to: folder.file("missing/out.txt"))
    }
    #expect(error == AtomicFileError(.create, code: ENOENT))
    #expect(!error.reason.isEmpty)
    #expect(folder.listing.isEmpty)
  }

  @Test(.enabled(if: geteuid() != 0, "root writes into read-only folders"))
  func aReadOnlyFolderLeavesTheOldFileUntouched() throws {
    let folder = try TemporaryFolder()
    defer {
      chmod(folder.path, 0o755)
      folder.remove()
    }
    let path = try folder.write("out.txt", "old")
    chmod(folder.path, 0o555)
    let error = try #require(throws: AtomicFileError.self) { try AtomicFile.write(Array("new".utf8), to: path) }
    #expect(error.step == .create)
    #expect(contents(path) == "old")
    #expect(folder.listing == ["out.txt"])
  }

  @Test func notReplacingKeepsAnExistingFile() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = try folder.write("key.json", "old")
    let error = try #require(throws: AtomicFileError.self) {
      try AtomicFile.write(Array("new".utf8), to: path, replacing: false)
    }
    #expect(error.isExistingFile)
    #expect(contents(path) == "old")
    #expect(folder.listing == ["key.json"])
    try AtomicFile.write(Array("first".utf8), to: folder.file("fresh.json"), replacing: false)
    #expect(contents(folder.file("fresh.json")) == "first")
    #expect(folder.listing == ["fresh.json", "key.json"])
  }

  @Test func exactPermissionsIgnoreTheUmask() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    // Bits a usual umask (022) takes away; the umask is the process's, so it stays as it is.
    let path = folder.file("shared.key")
    try AtomicFile.write(Array("k".utf8), to: path, permissions: .exactly(0o666))
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    #expect((attributes[.posixPermissions] as? Int) == 0o666)
  }
}

@Suite struct AtomicFileStreamingTests {
  @Test func theFileAppearsOnlyAtCommit() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("clip.avi")
    let file = try AtomicFile.begin(path)
    #expect(file.temporaryPath == folder.file(".clip.avi.\(getpid()).tmp"))
    try file.write(Array("one ".utf8))
    try file.write(Data("two".utf8))
    #expect(!FileManager.default.fileExists(atPath: path))
    #expect(folder.listing == [".clip.avi.\(getpid()).tmp"])
    try file.commit()
    try file.commit()
    #expect(contents(path) == "one two")
    #expect(folder.listing == ["clip.avi"])
  }

  @Test func twoWritersOfOnePathGetTheirOwnTemporaryFiles() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("same.jsonl")
    let first = try AtomicFile.begin(path)
    let second = try AtomicFile.begin(path)
    #expect(second.temporaryPath == folder.file(".same.jsonl.\(getpid()).1.tmp"))
    try first.write(Array("first".utf8))
    try second.write(Array("second".utf8))
    try first.commit()
    #expect(contents(path) == "first")
    try second.commit()
    #expect(contents(path) == "second")
    #expect(folder.listing == ["same.jsonl"])
  }

  @Test func aSuffixNamesTheTemporaryFile() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("export.jsonl")
    let stale = try folder.write("export.jsonl.tmp", "stale and longer")
    let file = try AtomicFile.begin(path, temporaryName: .suffix(".tmp"))
    #expect(file.temporaryPath == stale)
    try file.write(Array("fresh".utf8))
    try file.commit()
    #expect(contents(path) == "fresh")
    #expect(folder.listing == ["export.jsonl"])
  }

  @Test func aFailedWriteLeavesTheOldFileUntouched() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = try folder.write("trace.jsonl", "old")
    let file = try AtomicFile.begin(path)
    try file.write(Array("new, partly".utf8))
    // With its descriptor gone, the next write fails, as on a full disk.
    file.releaseDescriptor()
    let error = try #require(throws: AtomicFileError.self) { try file.write(Array("more".utf8)) }
    #expect(error.step == .write)
    // The file can no longer be whole: committing says why, and moves nothing.
    #expect(throws: error) { try file.commit() }
    #expect(contents(path) == "old")
    #expect(FileManager.default.fileExists(atPath: file.temporaryPath))
    file.abandon()
    #expect(folder.listing == ["trace.jsonl"])
  }

  @Test func abandoningRemovesTheTemporaryFile() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = try folder.write("clip.avi", "old")
    let file = try AtomicFile.begin(path)
    try file.write(Array("new".utf8))
    file.abandon()
    #expect(throws: AtomicFileError.self) { try file.commit() }
    #expect(contents(path) == "old")
    #expect(folder.listing == ["clip.avi"])
  }

  @Test func aDroppedHandleIsAbandoned() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("clip.mp4")
    do {
      let file = try AtomicFile.begin(path)
      try file.write(Array("partial".utf8))
    }
    #expect(folder.listing.isEmpty)
  }

  @Test func aWriterThatOpensTheTemporaryFileByNameCommitsIt() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("clip.mp4")
    let file = try AtomicFile.begin(path)
    file.releaseDescriptor()
    #expect(file.descriptor == -1)
    try "encoded".write(toFile: file.temporaryPath, atomically: false, encoding: .utf8)
    try file.commit()
    #expect(contents(path) == "encoded")
    #expect(folder.listing == ["clip.mp4"])
  }

  @Test func moveRenamesAWholeFileIntoPlace() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let pending = try folder.write(".clip.avi.pending", "frames")
    try AtomicFile.move(pending, over: folder.file("clip.avi"))
    #expect(folder.listing == ["clip.avi"])
    let error = try #require(throws: AtomicFileError.self) {
      try AtomicFile.move(folder.file("gone"), over: folder.file("clip.avi"))
    }
    #expect(error == AtomicFileError(.move, code: ENOENT))
    #expect(contents(folder.file("clip.avi")) == "frames")
  }
}
