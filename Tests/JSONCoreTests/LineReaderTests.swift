import Diagnostics
import Foundation
import JSONCore
import TestSupport
import Testing

@Suite struct LineReaderTests {
  private func lines(of text: String) throws -> [String] {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let reader = try LineReader(path: try folder.write("in.txt", text), what: "trace", status: .input, help: nil)
    var read: [String] = []
    while let line = try reader.next() { read.append(String(decoding: line, as: UTF8.self)) }
    return read
  }

  @Test func splitsOnLineBreaksWithOrWithoutCarriageReturns() throws {
    #expect(try lines(of: "a\nbb\r\n\nccc") == ["a", "bb", "", "ccc"])
    #expect(try lines(of: "a\n") == ["a"])
    #expect(try lines(of: "") == [])
    #expect(try lines(of: "last\r") == ["last"])
  }

  @Test func memoryStaysAtOneBlockForAnyNumberOfShortLines() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let line = "{\"t\":0.033333,\"face\":{\"count\":1,\"yaw\":-12.5,\"pitch\":3.25}}\n"
    let path = try folder.write("long.jsonl", String(repeating: line, count: 50_000))
    let reader = try LineReader(path: path, what: "trace", status: .input, help: nil)
    var count = 0
    while let read = try reader.next() {
      #expect(read.count == line.utf8.count - 1)
      count += 1
    }
    #expect(count == 50_000)
    #expect(reader.bufferedBytes <= 2 * (64 << 10))
  }

  @Test func aLineLongerThanABlockIsReadWhole() throws {
    let long = String(repeating: "x", count: 300_000)
    #expect(try lines(of: "short\n\(long)\nafter") == ["short", long, "after"])
  }

  @Test func aMissingFileOrAFolderIsNamed() throws {
    #expect {
      _ = try LineReader(path: "no-such-trace.jsonl", what: "trace", status: .input, help: nil)
    } throws: { error in
      (error as? WorkbenchError)?.summary.contains("no-such-trace.jsonl: no such file") == true
    }
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    #expect {
      _ = try LineReader(path: folder.path, what: "trace", status: .input, help: nil)
    } throws: { error in
      (error as? WorkbenchError)?.summary.contains("is a folder") == true
    }
  }
}
