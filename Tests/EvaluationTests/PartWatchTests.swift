import Foundation
import TestSupport
import Testing

@testable import Evaluation

struct PartWatchTests {
  @Test func countsWholeLinesAsTheyAreAppendedWithoutRereading() throws {
    let folder = try TemporaryFolder(prefix: "part-watch")
    defer { folder.remove() }
    let path = folder.file("part.jsonl")
    var watch = PartWatch(path: path)
    #expect(watch.lines() == 0, "no file yet")
    _ = try folder.write("part.jsonl", "{\"id\":\"a\"}\n{\"id\":")
    #expect(watch.lines() == 1, "the cut line is not whole yet")
    let handle = try #require(FileHandle(forWritingAtPath: path))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data("\"b\"}\n{\"id\":\"c\"}\n".utf8))
    try handle.close()
    #expect(watch.lines() == 3)
    #expect(watch.lines() == 3, "nothing new")
  }
}
