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
    #expect(read.count == 3)
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
    #expect(throws: WorkbenchError.self) { try ReadTrace(path: broken) }
  }
}
