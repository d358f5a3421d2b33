import Diagnostics
import Foundation
import JSONCore
import Measurements
import Reporting
import TestSupport
import Testing

/// Reads every frame of a trace file.
private func read(_ path: String) throws -> (frames: [MeasurementFrame], schema: MeasurementSchema, header: JSONObject?)
{
  let schema = MeasurementSchema()
  var reader = try TraceReader(path: path, schema: schema)
  var frames: [MeasurementFrame] = []
  while let frame = try reader.next() { frames.append(frame) }
  return (frames, schema, reader.header)
}

/// A frame as "path" → value for every measurement present, so frames read
/// with different schemas can be compared.
private func byPath(_ frame: MeasurementFrame, _ schema: MeasurementSchema) -> [String: MeasurementValue] {
  var values: [String: MeasurementValue] = [:]
  for (id, node) in schema.nodes.enumerated() where frame[id] != .absent {
    values[node.path] = frame[id]
  }
  return values
}

/// Reads `source` (trace text), writes what was read with a TraceWriter, and
/// returns the written text and the frames of both.
private func roundTrip(_ source: String, header: JSONObject = JSONObject()) throws -> (
  text: String, original: [[String: MeasurementValue]], copy: [[String: MeasurementValue]],
  originalFrames: [MeasurementFrame], copyFrames: [MeasurementFrame], copyHeader: JSONObject?
) {
  let folder = try TemporaryFolder()
  defer { folder.remove() }
  let input = try folder.write("in.jsonl", source)
  let output = folder.path + "/out.jsonl"

  let schema = MeasurementSchema()
  var reader = try TraceReader(path: input, schema: schema)
  let writer = try TraceWriter(path: output, schema: schema, header: header)
  var original: [MeasurementFrame] = []
  while let frame = try reader.next() {
    writer.write(frame)
    original.append(frame)
  }
  #expect(!FileManager.default.fileExists(atPath: output))
  try writer.finish()

  let text = String(decoding: try #require(FileManager.default.contents(atPath: output)), as: UTF8.self)
  let copy = try read(output)
  return (
    text, original.map { byPath($0, schema) }, copy.frames.map { byPath($0, copy.schema) }, original, copy.frames,
    copy.header
  )
}

@Suite struct TraceWriterTests {
  @Test func theHeaderComesFirst() throws {
    let result = try roundTrip(
      "{\"t\": 0}\n", header: JSONObject([("flow", "examples/liveness.lua"), ("source", "in.jsonl")]))
    let firstLine = try #require(result.text.split(separator: "\n").first)
    #expect(firstLine == #"{"workbench_trace":1,"flow":"examples/liveness.lua","source":"in.jsonl"}"#)
    #expect(result.copyHeader?["workbench_trace"] == .integer(TraceReader.formatVersion))
    #expect(result.copyHeader?["flow"] == "examples/liveness.lua")
  }

  @Test func aTraceWithoutFramesIsJustTheHeader() throws {
    let result = try roundTrip("")
    #expect(result.text == "{\"workbench_trace\":1}\n")
    #expect(result.copyFrames.isEmpty)
  }

  @Test func framesAreWrittenCompactlyWithTimeAndFrameFirst() throws {
    let result = try roundTrip(
      """
      {"frame": 4, "face": {"yaw": -2.5, "count": 1}, "t": 0.133333, "ok": true, "label": "a\\"b"}
      """)
    let lines = result.text.split(separator: "\n").map(String.init)
    #expect(lines.count == 2)
    #expect(lines[1] == #"{"t":0.133333,"frame":4,"face":{"yaw":-2.5,"count":1},"ok":true,"label":"a\"b"}"#)
  }

  @Test func arraysAreWrittenAsArrays() throws {
    let result = try roundTrip(
      #"{"t": 0, "card": {"corners": [{"x": 1, "y": 2}, {"x": 3.5, "y": 4}]}, "tags": ["a", "b", "c"], "m": [[1, 2], [3]]}"#
    )
    let lines = result.text.split(separator: "\n").map(String.init)
    #expect(
      lines[1]
        == #"{"t":0,"frame":0,"card":{"corners":[{"x":1,"y":2},{"x":3.5,"y":4}]},"tags":["a","b","c"],"m":[[1,2],[3]]}"#
    )
    #expect(result.copy == result.original)
  }

  @Test func shorterArraysInLaterFramesStayArrays() throws {
    let result = try roundTrip(
      """
      {"t": 0, "list": [1, 2, 3]}
      {"t": 1, "list": [7]}
      {"t": 2, "list": []}
      """)
    let lines = result.text.split(separator: "\n").map(String.init)
    #expect(lines[1] == #"{"t":0,"frame":0,"list":[1,2,3]}"#)
    #expect(lines[2] == #"{"t":1,"frame":1,"list":[7]}"#)
    #expect(result.copy == result.original)
  }

  @Test func absentMeasurementsAreLeftOut() throws {
    let result = try roundTrip(
      """
      {"t": 0, "face": {"count": 1, "yaw": 3}, "card": {"x": 1}}
      {"t": 1, "face": {"count": 0}}
      {"t": 2, "face": {"yaw": null, "count": 2}}
      {"t": 3}
      """)
    let lines = result.text.split(separator: "\n").map(String.init)
    #expect(lines[2] == #"{"t":1,"frame":1,"face":{"count":0}}"#)
    #expect(lines[3] == #"{"t":2,"frame":2,"face":{"count":2}}"#)
    #expect(lines[4] == #"{"t":3,"frame":3}"#)
    #expect(result.copy == result.original)
  }

  @Test func aRoundTripKeepsEveryValue() throws {
    let source = """
      {"workbench_trace": 1, "fps": 30}
      {"t": 0.0, "frame": 0, "face": {"count": 0}}
      {"t": 0.033333, "frame": 1, "face": {"count": 1, "yaw": 12.75, "ear_left": 0.31, "ear_right": 0.29}}
      {"t": 0.066667, "frame": 2, "face": {"count": 1, "yaw": -0.5}, "card": {"corners": [{"x": 1, "y": 2}], "seen": true}}
      {"t": 0.1, "frame": 5, "label": "請", "big": 9007199254740993, "tiny": 1e-9, "whole": 2.0}
      {"t": 0.1, "frame": 6}
      """
    let result = try roundTrip(source)
    #expect(result.copy == result.original)
    #expect(result.copyFrames.map(\.t) == result.originalFrames.map(\.t))
    #expect(result.copyFrames.map(\.index) == [0, 1, 2, 5, 6])
    #expect(result.copy[3]["big"] == .integer(9_007_199_254_740_993))
    #expect(result.copy[3]["tiny"] == .number(1e-9))
    #expect(result.copy[2]["card.corners.1.y"] == .integer(2))
  }

  @Test func wholeFractionsStayFractions() throws {
    // A replay must give the flow the same Lua number types: 32.0 stays a float.
    let result = try roundTrip(#"{"t": 1.0, "whole": 2.0, "yaw": -32.0, "count": 2, "huge": 1e20}"#)
    let lines = result.text.split(separator: "\n").map(String.init)
    #expect(lines[1] == #"{"t":1,"frame":0,"whole":2.0,"yaw":-32.0,"count":2,"huge":1e+20}"#)
    #expect(result.copy[0]["whole"] == .number(2))
    #expect(result.copy[0]["count"] == .integer(2))
    #expect(result.copy == result.original)
    #expect(result.copyFrames[0].t == 1)
  }

  @Test func arraysWithMissingElementsStayArrays() throws {
    let result = try roundTrip(
      """
      {"t": 0, "points": [null, 5, 6]}
      {"t": 1, "points": [1, null, 3]}
      """)
    let lines = result.text.split(separator: "\n").map(String.init)
    #expect(lines[1] == #"{"t":0,"frame":0,"points":[null,5,6]}"#)
    #expect(lines[2] == #"{"t":1,"frame":1,"points":[1,null,3]}"#)
    #expect(result.copy == result.original)
  }

  @Test func namesThatLookLikeNumbersStayNames() throws {
    let result = try roundTrip(#"{"t": 0, "by_id": {"1": "one", "2": "two"}}"#)
    let lines = result.text.split(separator: "\n").map(String.init)
    #expect(lines[1] == #"{"t":0,"frame":0,"by_id":{"1":"one","2":"two"}}"#)
  }

  @Test func framesBuiltInCodeCanBeWritten() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path + "/built.jsonl"
    let schema = MeasurementSchema()
    let writer = try TraceWriter(path: path, schema: schema)
    guard case .success(let yaw) = schema.node(path: "face.yaw"),
      case .success(let face) = schema.node(path: "face", isTable: true)
    else {
      Issue.record("schema")
      return
    }
    var frame = MeasurementFrame(t: 0.5, index: 15)
    frame[face] = .table
    frame[yaw] = .number(-4.25)
    writer.write(frame)
    // A node added after the first frame is written too.
    guard case .success(let count) = schema.node(path: "face.count") else { return }
    frame[count] = .integer(1)
    frame.t = 0.6
    frame.index = 18
    writer.write(frame)
    try writer.finish()

    let copy = try read(path)
    #expect(copy.frames.map(\.index) == [15, 18])
    #expect(
      copy.frames.map { byPath($0, copy.schema) } == [
        ["face": .table, "face.yaw": .number(-4.25)],
        ["face": .table, "face.yaw": .number(-4.25), "face.count": .integer(1)],
      ])
  }

  @Test func aMissingFolderIsAnError() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let error = try #require(throws: WorkbenchError.self) {
      _ = try TraceWriter(path: folder.path + "/nope/trace.jsonl", schema: MeasurementSchema())
    }
    #expect(error.status == .usage)
  }

  @Test func theShippedExampleTracesSurviveARoundTrip() throws {
    for name in ["liveness-pass", "liveness-slow-blink"] {
      let path = packageRoot() + "/examples/traces/\(name).jsonl"
      let source = String(decoding: try #require(FileManager.default.contents(atPath: path)), as: UTF8.self)
      let result = try roundTrip(source)
      #expect(result.copy == result.original, "\(name)")
      #expect(result.copyFrames.map(\.t) == result.originalFrames.map(\.t))
      #expect(result.copyFrames.map(\.index) == result.originalFrames.map(\.index))
      #expect(result.originalFrames.count > 100)
    }
  }
}
