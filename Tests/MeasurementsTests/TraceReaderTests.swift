import Diagnostics
import Foundation
import JSONCore
import Measurements
import TestSupport
import Testing

/// Writes `lines` (joined with newlines) to a trace file and reads every frame.
private func readAll(_ text: String) throws -> (
  frames: [MeasurementFrame], schema: MeasurementSchema, header: JSONObject?
) {
  let folder = try TemporaryFolder()
  defer { folder.remove() }
  let path = try folder.write("trace.jsonl", text)
  let schema = MeasurementSchema()
  var reader = try TraceReader(path: path, schema: schema)
  var frames: [MeasurementFrame] = []
  while let frame = try reader.next() { frames.append(frame) }
  return (frames, schema, reader.header)
}

/// Reads a trace that must fail; returns the error and the trace's path.
private func readError(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> (
  error: WorkbenchError, path: String, framesBefore: Int
) {
  let folder = try TemporaryFolder()
  defer { folder.remove() }
  let path = try folder.write("trace.jsonl", text)
  var reader = try TraceReader(path: path, schema: MeasurementSchema())
  var count = 0
  do {
    while try reader.next() != nil { count += 1 }
  } catch {
    return (error, path, count)
  }
  Issue.record("expected the trace to fail, read \(count) frames", sourceLocation: sourceLocation)
  throw CancellationError()
}

private func value(_ frame: MeasurementFrame, _ schema: MeasurementSchema, _ path: String) -> MeasurementValue {
  guard let node = schema.lookup(path: path) else { return .absent }
  return frame[node]
}

@Suite struct TraceReaderTests {
  @Test func framesWithHeader() throws {
    let (frames, schema, header) = try readAll(
      """
      {"workbench_trace": 1, "source": "test", "fps": 30.0}
      {"t": 0.0, "frame": 10, "face": {"count": 1, "yaw": -2.5}}
      {"t": 0.033333, "frame": 11, "face": {"count": 1, "yaw": 3}}
      """)
    #expect(header?["workbench_trace"] == .integer(1))
    #expect(header?["source"] == .string("test"))
    #expect(header?.keys == ["workbench_trace", "source", "fps"])
    #expect(frames.count == 2)
    #expect(frames.map(\.t) == [0.0, 0.033333])
    #expect(frames.map(\.index) == [10, 11])
    #expect(value(frames[0], schema, "face.count") == .integer(1))
    #expect(value(frames[0], schema, "face.yaw") == .number(-2.5))
    #expect(value(frames[1], schema, "face.yaw") == .integer(3))
    #expect(value(frames[0], schema, "face") == .table)
    // "t" and "frame" are not measurements.
    #expect(schema.lookup(path: "t") == nil)
    #expect(schema.lookup(path: "frame") == nil)
  }

  @Test func withoutHeaderOrFrameNumbersFramesAreCounted() throws {
    let (frames, _, header) = try readAll(
      """
      {"t": 1}
      {"t": 2, "frame": 7}
      {"t": 3}
      """)
    #expect(header == nil)
    #expect(frames.map(\.index) == [0, 7, 2])
    #expect(frames.map(\.t) == [1, 2, 3])
  }

  @Test func allValueKinds() throws {
    let (frames, schema, _) = try readAll(#"{"t": 0, "i": 3, "d": 0.5, "b": true, "s": "text", "big": 1e300}"#)
    let frame = try #require(frames.first)
    #expect(value(frame, schema, "i") == .integer(3))
    #expect(value(frame, schema, "d") == .number(0.5))
    #expect(value(frame, schema, "b") == .bool(true))
    #expect(value(frame, schema, "s") == .string("text"))
    #expect(value(frame, schema, "big") == .number(1e300))
  }

  @Test func nestedObjectsAndArraysBecomeNodes() throws {
    let (frames, schema, _) = try readAll(
      #"{"t": 0, "card": {"corners": [{"x": 1, "y": 2}, {"x": 3.5, "y": 4}], "ok": false}, "tags": ["a", "b"]}"#)
    let frame = try #require(frames.first)
    #expect(
      schema.nodes.map(\.path) == [
        "card", "card.corners", "card.corners.1", "card.corners.1.x", "card.corners.1.y", "card.corners.2",
        "card.corners.2.x", "card.corners.2.y", "card.ok", "tags", "tags.1", "tags.2",
      ])
    #expect(schema.nodes[schema.lookup(path: "card.corners.2")!].key == .index(2))
    #expect(schema.nodes[schema.lookup(path: "tags")!].isTable)
    #expect(value(frame, schema, "card.corners") == .table)
    #expect(value(frame, schema, "card.corners.2") == .table)
    #expect(value(frame, schema, "card.corners.2.x") == .number(3.5))
    #expect(value(frame, schema, "card.corners.1.y") == .integer(2))
    #expect(value(frame, schema, "card.ok") == .bool(false))
    #expect(value(frame, schema, "tags.2") == .string("b"))
  }

  @Test func theSchemaGrowsAcrossFramesAndMissingFieldsAreAbsent() throws {
    let (frames, schema, _) = try readAll(
      """
      {"t": 0, "face": {"count": 0}}
      {"t": 1, "face": {"count": 1, "yaw": 4}, "card": [1, 2, 3]}
      {"t": 2}
      """)
    #expect(schema.nodes.map(\.path) == ["face", "face.count", "face.yaw", "card", "card.1", "card.2", "card.3"])
    #expect(value(frames[0], schema, "face.yaw") == .absent)
    #expect(value(frames[0], schema, "card") == .absent)
    #expect(value(frames[1], schema, "face.yaw") == .integer(4))
    #expect(value(frames[1], schema, "card.3") == .integer(3))
    #expect(value(frames[2], schema, "face") == .absent)
    #expect(value(frames[2], schema, "face.count") == .absent)
  }

  @Test func nullIsAbsent() throws {
    let (frames, schema, _) = try readAll(
      """
      {"t": 0, "face": {"yaw": null, "count": 1}, "list": [null, 5]}
      {"t": 1, "face": {"yaw": 2}}
      """)
    #expect(value(frames[0], schema, "face.yaw") == .absent)
    #expect(value(frames[0], schema, "face.count") == .integer(1))
    #expect(value(frames[0], schema, "list.1") == .absent)
    #expect(value(frames[0], schema, "list.2") == .integer(5))
    #expect(value(frames[1], schema, "face.yaw") == .integer(2))
  }

  @Test func nullDoesNotFixTheShapeOfAMeasurement() throws {
    // A null says only "not measured in this frame": the field may be a table later.
    let (frames, schema, _) = try readAll(
      """
      {"t": 0, "face": null}
      {"t": 1, "face": {"yaw": 2}}
      """)
    #expect(frames.count == 2)
    #expect(value(frames[0], schema, "face") == .absent)
    #expect(value(frames[1], schema, "face") == .table)
    #expect(value(frames[1], schema, "face.yaw") == .integer(2))
  }

  @Test func blankLinesAreSkippedAndStillCounted() throws {
    let text = "\n{\"t\": 0}\n\n   \n\t\r\n{\"t\": 1}\r\n\n"
    let (frames, _, _) = try readAll(text)
    #expect(frames.map(\.t) == [0, 1])

    let (error, path, before) = try readError("{\"t\": 0}\n\n  \n{\"t\": oops}\n")
    #expect(before == 1)
    #expect(error.diagnostics.first?.location == Diagnostics.SourceLocation(file: path, line: 4))
  }

  @Test func theLastLineNeedsNoNewline() throws {
    let (frames, _, _) = try readAll("{\"t\": 0}\n{\"t\": 0.5}")
    #expect(frames.map(\.t) == [0, 0.5])
  }

  @Test func anEmptyTraceHasNoFrames() throws {
    #expect(try readAll("").frames.isEmpty)
    #expect(try readAll("\n\n").frames.isEmpty)
    let headerOnly = try readAll(#"{"workbench_trace": 1}"#)
    #expect(headerOnly.frames.isEmpty)
    #expect(headerOnly.header != nil)
  }

  @Test func theHeaderMayFollowBlankLines() throws {
    let (frames, _, header) = try readAll("\n\n{\"workbench_trace\": 1}\n{\"t\": 0}\n")
    #expect(header != nil)
    #expect(frames.count == 1)
  }

  @Test func equalTimesAreAllowed() throws {
    let (frames, _, _) = try readAll("{\"t\": 1}\n{\"t\": 1}\n{\"t\": 1.5}")
    #expect(frames.map(\.t) == [1, 1, 1.5])
  }
}

@Suite struct TraceReaderErrorTests {
  private func expectInputError(
    _ text: String, line: Int, containing fragment: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) throws {
    let (error, path, _) = try readError(text, sourceLocation: sourceLocation)
    #expect(error.status == .input, sourceLocation: sourceLocation)
    let diagnostic = try #require(error.diagnostics.first, sourceLocation: sourceLocation)
    #expect(diagnostic.location == Diagnostics.SourceLocation(file: path, line: line), sourceLocation: sourceLocation)
    #expect(diagnostic.message.contains(fragment), "\(diagnostic.message)", sourceLocation: sourceLocation)
    #expect(error.description.contains("\(path):\(line): "), sourceLocation: sourceLocation)
  }

  @Test func invalidJSON() throws {
    try expectInputError("{\"t\": 0}\n{\"t\": 1,}\n", line: 2, containing: "not valid JSON (column 9)")
    try expectInputError("{\"t\": 0} {\"t\": 1}\n", line: 1, containing: "not valid JSON")
    try expectInputError("{\"t\": 0, \"t\": 1}\n", line: 1, containing: "duplicate key")
  }

  @Test func aLineMustBeAnObject() throws {
    try expectInputError("{\"t\": 0}\n[1, 2]\n", line: 2, containing: "must be a JSON object, not array")
    try expectInputError("42\n", line: 1, containing: "not integer")
    try expectInputError("\"text\"\n", line: 1, containing: "not string")
  }

  @Test func missingTime() throws {
    try expectInputError("{\"t\": 0}\n{\"face\": {}}\n", line: 2, containing: "missing \"t\"")
  }

  @Test func nonNumericTime() throws {
    try expectInputError("{\"t\": \"0.5\"}\n", line: 1, containing: "\"t\" must be a number of seconds, not string")
    try expectInputError("{\"t\": null}\n", line: 1, containing: "not null")
    try expectInputError("{\"t\": true}\n", line: 1, containing: "not boolean")
  }

  @Test func timeGoingBackwards() throws {
    try expectInputError(
      "{\"t\": 0}\n{\"t\": 2}\n\n{\"t\": 1.5}\n", line: 4, containing: "time goes backwards: t = 1.5 after t = 2")
  }

  @Test func badFrameNumbers() throws {
    try expectInputError("{\"t\": 0, \"frame\": -1}\n", line: 1, containing: "\"frame\" must be a whole number")
    try expectInputError("{\"t\": 0, \"frame\": 1.5}\n", line: 1, containing: "\"frame\" must be a whole number")
    try expectInputError("{\"t\": 0, \"frame\": \"3\"}\n", line: 1, containing: "\"frame\" must be a whole number")
  }

  @Test func unsupportedHeaderVersion() throws {
    try expectInputError(
      "{\"workbench_trace\": 2}\n{\"t\": 0}\n", line: 1, containing: "trace format version 2 is not supported")
    try expectInputError("{\"workbench_trace\": \"1\"}\n", line: 1, containing: "version \"1\" is not supported")
  }

  @Test func theHeaderMustComeFirst() throws {
    try expectInputError(
      "{\"t\": 0}\n{\"workbench_trace\": 1}\n", line: 2, containing: "the header line must come first")
    try expectInputError("{\"workbench_trace\": 1}\n{\"workbench_trace\": 1}\n", line: 2, containing: "must come first")
  }

  @Test func shapeChanges() throws {
    try expectInputError(
      "{\"t\": 0, \"face\": {\"yaw\": 1}}\n{\"t\": 1, \"face\": 3}\n", line: 2,
      containing: "'face' was a table of measurements and is now a single value")
    try expectInputError(
      "{\"t\": 0, \"face\": 3}\n{\"t\": 1, \"face\": [1]}\n", line: 2,
      containing: "'face' was a single value and is now a table")
  }

  @Test func errorsPointAtTheTraceFormat() throws {
    let (error, _, _) = try readError("[]\n")
    #expect(error.diagnostics.first?.help?.contains("docs/traces.md") == true)
  }

  @Test func aMissingFile() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path + "/missing.jsonl"
    let error = try #require(throws: WorkbenchError.self) {
      _ = try TraceReader(path: path, schema: MeasurementSchema())
    }
    #expect(error.status == .input)
    #expect(error.diagnostics.first?.location == Diagnostics.SourceLocation(file: path))
    #expect(error.diagnostics.first?.message == "no such file")
    #expect(error.diagnostics.first?.help?.contains("--input") == true)
  }

  @Test func aDirectory() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let error = try #require(throws: WorkbenchError.self) {
      _ = try TraceReader(path: folder.path, schema: MeasurementSchema())
    }
    #expect(error.status == .input)
    #expect(error.diagnostics.first?.location == Diagnostics.SourceLocation(file: folder.path))
    #expect(error.diagnostics.first?.message.contains("is a folder") == true)
  }

  @Test func framesBeforeAnErrorAreDelivered() throws {
    let (_, _, before) = try readError("{\"t\": 0}\n{\"t\": 1}\n{\"t\": 2}\nnot json\n")
    #expect(before == 3)
  }
}
