import Diagnostics
import Foundation
import JSONCore
import Reporting
import TestSupport
import Testing

private func contents(_ path: String) -> String? {
  FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
}

private func listing(_ folder: String) -> [String] {
  ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
}

@Suite struct JSONLinesEventSinkTests {
  @Test func theFileAppearsOnlyWhenFinished() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path + "/events.jsonl"
    let sink = try JSONLinesEventSink(path: path)
    #expect(!sink.writesToStandardOutput)
    #expect(!FileManager.default.fileExists(atPath: path))

    let events = [
      Event(type: "session", t: 0, frame: 0, fields: JSONObject([("flow", "f")])),
      Event(type: "hint", t: 0.25, frame: 7, fields: JSONObject([("text", "請直視鏡頭")])),
      Event(type: "result", t: 1, frame: 30, fields: JSONObject([("success", true), ("reason", "passed")])),
    ]
    for event in events { sink.emit(event) }
    #expect(!FileManager.default.fileExists(atPath: path))
    // Meanwhile the events go to a hidden temporary file next to it.
    let temporary = listing(folder.path)
    #expect(temporary.count == 1)
    #expect(temporary.first?.hasPrefix(".events.jsonl.") == true)
    #expect(temporary.first?.hasSuffix(".tmp") == true)

    try sink.finish()
    #expect(listing(folder.path) == ["events.jsonl"])
    let text = try #require(contents(path))
    #expect(text == events.map { $0.jsonLine + "\n" }.joined())
    let lines = text.split(separator: "\n")
    #expect(lines.count == 3)
    for line in lines { #expect(throws: Never.self) { try JSONParser.parse(String(line)) } }
  }

  @Test func finishingTwiceChangesNothing() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path + "/events.jsonl"
    let sink = try JSONLinesEventSink(path: path)
    sink.emit(Event(type: "result", t: 0, frame: 0))
    try sink.finish()
    try sink.finish()
    sink.emit(Event(type: "late", t: 1, frame: 1))
    #expect(contents(path) == "{\"type\":\"result\",\"t\":0,\"frame\":0}\n")
    #expect(listing(folder.path) == ["events.jsonl"])
  }

  @Test func anEmptyRunGivesAnEmptyFile() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path + "/events.jsonl"
    try JSONLinesEventSink(path: path).finish()
    #expect(contents(path) == "")
  }

  @Test func anOldFileIsReplacedOnlyAtTheEnd() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = try folder.write("events.jsonl", "old contents\n")
    let sink = try JSONLinesEventSink(path: path)
    sink.emit(Event(type: "new", t: 0, frame: 0))
    #expect(contents(path) == "old contents\n")
    try sink.finish()
    #expect(contents(path) == "{\"type\":\"new\",\"t\":0,\"frame\":0}\n")
  }

  @Test func aMissingFolderIsAnError() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path + "/no/such/folder/events.jsonl"
    let error = try #require(throws: WorkbenchError.self) { _ = try JSONLinesEventSink(path: path) }
    #expect(error.status == .usage)
    #expect(error.diagnostics.first?.location == Diagnostics.SourceLocation(file: path))
    #expect(error.diagnostics.first?.message.contains("does not exist") == true)
    #expect(listing(folder.path).isEmpty)
  }
}

@Suite struct OutputFileTests {
  @Test func aMissingFolderIsAnError() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path + "/missing/out.jsonl"
    let error = try #require(throws: WorkbenchError.self) { _ = try OutputFile(path: path) }
    #expect(error.status == .usage)
    #expect(error.diagnostics.first?.message == "the folder \(folder.path)/missing does not exist")
    #expect(error.diagnostics.first?.help != nil)
  }

  @Test func aFileInPlaceOfTheFolderIsAnError() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let file = try folder.write("plain-file", "x")
    let error = try #require(throws: WorkbenchError.self) { _ = try OutputFile(path: file + "/out.jsonl") }
    #expect(error.status == .usage)
  }

  @Test func writesArriveInOrder() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path + "/out.txt"
    let output = try OutputFile(path: path)
    #expect(output.path == path)
    #expect(!output.isStandardOutput)
    output.write(Array("one\n".utf8))
    output.write([])
    output.write(Array("two\n".utf8))
    try output.finish()
    #expect(contents(path) == "one\ntwo\n")
  }

  @Test func anUnfinishedFileIsKeptWhenReleased() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path + "/out.txt"
    do {
      let output = try OutputFile(path: path)
      output.write(Array("partial\n".utf8))
    }
    #expect(contents(path) == "partial\n")
    #expect(listing(folder.path) == ["out.txt"])
  }

  @Test func twoOutputsToTheSamePathDoNotGarbleEachOther() throws {
    // E.g. --events and --trace-out given the same file.
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path + "/same.jsonl"
    let first = try OutputFile(path: path)
    let second = try OutputFile(path: path)
    #expect(listing(folder.path).count == 2)
    first.write(Array("first line one\n".utf8))
    second.write(Array("second\n".utf8))
    first.write(Array("first line two\n".utf8))
    try first.finish()
    #expect(contents(path) == "first line one\nfirst line two\n")
    try second.finish()
    #expect(contents(path) == "second\n")
    #expect(listing(folder.path) == ["same.jsonl"])
  }

  @Test func aStaleTemporaryFileIsNotReused() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path + "/out.jsonl"
    let stale = try folder.write(".out.jsonl.\(getpid()).tmp", "stale")
    let output = try OutputFile(path: path)
    output.write(Array("fresh\n".utf8))
    try output.finish()
    #expect(contents(path) == "fresh\n")
    #expect(contents(stale) == "stale")
  }
}
