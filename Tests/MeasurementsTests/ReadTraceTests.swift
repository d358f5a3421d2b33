import Diagnostics
import Foundation
import Measurements
import TestSupport
import Testing

/// A trace read once (`ReadTrace`) and replayed gives what reading its file gives.
@Suite struct ReadTraceTests {
  func frames(_ reader: inout TraceReader) throws -> [String] {
    var seen: [String] = []
    while let frame = try reader.next() { seen.append("\(frame.t) \(frame.index) \(frame.values)") }
    return seen
  }

  @Test func replayingTheLinesReadGivesTheFramesOfTheFile() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = try folder.write(
      "t.jsonl",
      """
      {"workbench_trace":1,"fps":30}
      {"t":0,"face":{"count":1,"yaw":2.5}}

      {"t":0.5,"frame":7,"face":{"count":0},"card":{"corners":[{"x":1},{"x":2}]}}

      """)
    let read = try ReadTrace(path: path)
    #expect(read.count == 2)
    var first = TraceReader(read, schema: MeasurementSchema())
    var again = try TraceReader(path: path, schema: MeasurementSchema())
    let expected = try frames(&again)
    #expect(try frames(&first) == expected)
    #expect(expected.count == 2)
    #expect(first.header?["fps"] == .integer(30))
    var second = TraceReader(read, schema: MeasurementSchema())
    #expect(try frames(&second) == expected, "the lines read replay again")
  }

  @Test func aBadFrameIsReportedAtItsLineOfTheFile() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = try folder.write("t.jsonl", "{\"t\":1}\n\n{\"t\":0}\n")
    var replayed = TraceReader(try ReadTrace(path: path), schema: MeasurementSchema())
    _ = try replayed.next()
    #expect {
      _ = try replayed.next()
    } throws: { error in
      guard let error = error as? WorkbenchError else { return false }
      return error.diagnostics.first?.location?.line == 3
        && error.diagnostics.first?.message.contains("time goes backwards") == true
    }
    let broken = try folder.write("b.jsonl", "{\"t\":0}\n[1]\n")
    let read = try ReadTrace(path: broken)
    #expect(read.count == 1, "the frames before the line that is not an object")
    #expect(read.encoded() == nil, "a trace that fails is read from its JSON again, to fail the same way")
    var reader = TraceReader(read, schema: MeasurementSchema())
    #expect(try reader.next() != nil)
    #expect {
      _ = try reader.next()
    } throws: { error in
      (error as? WorkbenchError)?.diagnostics.first?.location?.line == 2
    }
  }

  static let trace = """
    {"workbench_trace":1,"fps":30,"source":"é"}
    {"t":0,"frame":3,"face":{"count":1,"yaw":-2.5,"ok":true,"label":"a\\"b"}}
    {"t":0.5,"face":{"count":0,"ok":false},"card":{"corners":[{"x":1},{"x":2.25}]}}
    {"t":0.75}

    """

  @Test func theBinaryFormReplaysAsTheTraceItWasMadeFrom() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = try folder.write("t.jsonl", Self.trace)
    let bytes = try #require(try ReadTrace(path: path).encoded())
    let decoded = try #require(ReadTrace(path: path, encoded: bytes))
    var fromFile = try TraceReader(path: path, schema: MeasurementSchema())
    var fromBinary = TraceReader(decoded, schema: MeasurementSchema())
    let expected = try frames(&fromFile)
    #expect(expected.count == 3)
    #expect(try frames(&fromBinary) == expected)
    #expect(fromBinary.header == fromFile.header)
    #expect(decoded.encoded() == bytes)
  }

  @Test func aDamagedBinaryFormIsRefusedNotRead() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = try folder.write("t.jsonl", Self.trace)
    let bytes = try #require(try ReadTrace(path: path).encoded())
    for length in 0..<bytes.count {
      #expect(ReadTrace(path: path, encoded: Array(bytes[..<length])) == nil, "cut at \(length)")
    }
    #expect(ReadTrace(path: path, encoded: bytes + [0]) == nil)
    var otherVersion = bytes
    otherVersion[8] &+= 1
    #expect(ReadTrace(path: path, encoded: otherVersion) == nil)
    // Every byte changed in turn: refused or read, never a crash.
    for position in bytes.indices {
      var changed = bytes
      changed[position] ^= 0xFF
      if let read = ReadTrace(path: path, encoded: changed) {
        var reader = TraceReader(read, schema: MeasurementSchema())
        while (try? reader.next()) != nil {}
      }
    }
  }

  @Test func aReplayIntoASchemaWithNodesOfItsOwnGivesTheSameMeasurements() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = try folder.write("t.jsonl", Self.trace)
    func byPath(_ schema: MeasurementSchema, _ reader: inout TraceReader) throws -> [[String: MeasurementValue]] {
      var frames: [[String: MeasurementValue]] = []
      while let frame = try reader.next() {
        var values: [String: MeasurementValue] = [:]
        for (id, node) in schema.nodes.enumerated() where frame[id] != .absent { values[node.path] = frame[id] }
        frames.append(values)
      }
      return frames
    }
    let plain = MeasurementSchema()
    var fromFile = try TraceReader(path: path, schema: plain)
    let declared = MeasurementSchema()
    _ = declared.node(path: "quality.blur")
    _ = declared.node(path: "face.yaw")
    var replayed = TraceReader(try ReadTrace(path: path), schema: declared)
    let expected = try byPath(plain, &fromFile)
    #expect(try byPath(declared, &replayed) == expected)
    #expect(expected[1]["card.corners.2.x"] == .number(2.25))

    let clashing = MeasurementSchema()
    _ = clashing.node(path: "card.corners")
    var refused = TraceReader(try ReadTrace(path: path), schema: clashing)
    _ = try refused.next()
    #expect {
      _ = try refused.next()
    } throws: { error in
      let diagnostic = (error as? WorkbenchError)?.diagnostics.first
      return diagnostic?.location?.line == 3 && diagnostic?.message.contains("card.corners") == true
    }
  }
}
