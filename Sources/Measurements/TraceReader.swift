import Diagnostics
import Foundation
import JSONCore

/// Reads a measurement trace: JSON Lines, one object per frame with `t`
/// (seconds), an optional `frame` number and nested measurements. An
/// optional first line `{"workbench_trace": 1, ...}` is a header.
/// See docs/traces.md.
///
/// The trace is read one line at a time (`LineReader`), from a file, a pipe
/// or standard input (`-`): memory does not grow with its length, and
/// another process can feed a run as it measures.
public struct TraceReader {
  public let path: String
  public let schema: MeasurementSchema
  /// The header line's object, if the trace has one.
  public private(set) var header: JSONObject?

  /// Where the frames come from: the file as it is read, or a trace read
  /// before (``ReadTrace``), which many runs replay without parsing again.
  private let lines: LineReader?
  private let read: ReadTrace?
  private var readPosition = 0
  /// The schema node of each of the read trace's nodes, -1 until a frame
  /// replayed has it; `mapsToItself` while every node has its own number.
  private var nodeMap: [Int] = []
  private var mapsToItself = true
  var lineNumber: Int {
    if let lines { return lines.lineNumber }
    guard let read, readPosition > 0 else { return 0 }
    return read.lineNumbers[min(readPosition, read.lineNumbers.count) - 1]
  }
  private var frameCount: Int64 = 0
  private var previousT: Double?

  public static let formatVersion: Int64 = 1
  static let formatHelp = "see docs/traces.md for the format"

  /// `interrupted` says whether a signal asked to stop, for a pipe that keeps
  /// the reading waiting (LineReader).
  public init(path: String, schema: MeasurementSchema, interrupted: @escaping () -> Bool = { false })
    throws(WorkbenchError)
  {
    self.path = path
    self.schema = schema
    lines = try TraceReader.lineReader(path, interrupted: interrupted)
    read = nil
  }

  /// Reads the lines of `trace`, read before, as the file's.
  public init(_ trace: ReadTrace, schema: MeasurementSchema) {
    path = trace.path
    self.schema = schema
    lines = nil
    read = trace
    header = trace.header
    nodeMap = Array(repeating: -1, count: trace.nodes.count)
  }

  static func lineReader(_ path: String, interrupted: @escaping () -> Bool = { false }) throws(WorkbenchError)
    -> LineReader
  {
    try LineReader(
      path: path, what: "trace", status: .input, help: "--input takes a .jsonl measurement trace (docs/traces.md)",
      interrupted: interrupted)
  }

  /// Whether the trace at `path` can be read again from its start (a restart):
  /// not standard input or a pipe.
  public static func canReadAgain(_ path: String) -> Bool {
    guard !LineReader.isStandardInput(path) else { return false }
    var information = stat()
    return stat(path, &information) == 0 && information.st_mode & S_IFMT == S_IFREG
  }

  /// The next frame, or nil at the end of the trace.
  public mutating func next() throws(WorkbenchError) -> MeasurementFrame? {
    if let read { return try replay(read) }
    while let object = try nextObject() {
      if let version = object["workbench_trace"] {
        guard lineNumber == 1 || header == nil && frameCount == 0 else {
          throw problem("the header line must come first")
        }
        guard version.integerValue == TraceReader.formatVersion else {
          throw problem(
            "trace format version \(version.jsonText) is not supported (this workbench reads version \(TraceReader.formatVersion))"
          )
        }
        header = object
        continue
      }
      return try frame(from: object)
    }
    return nil
  }

  /// The next line's object, nil at the end.
  private mutating func nextObject() throws(WorkbenchError) -> JSONObject? {
    guard let lines else { return nil }
    while let line = try lines.next() {
      if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { continue }
      return try JSONFile.record(line, file: path, line: lineNumber, help: TraceReader.formatHelp)
    }
    return nil
  }

  /// The read trace's next frame in this run's schema: its nodes are added
  /// to the schema in the order the file's reading added them, so a replay
  /// and a reading of the file give the same schema and the same frames.
  private mutating func replay(_ read: ReadTrace) throws(WorkbenchError) -> MeasurementFrame? {
    guard readPosition < read.frames.count else {
      if let ending = read.ending {
        readPosition = read.frames.count + 1
        throw ending
      }
      return nil
    }
    var frame = read.frames[readPosition]
    readPosition += 1
    for (node, value) in frame.values.enumerated() where nodeMap[node] < 0 {
      if case .absent = value { continue }
      let local = read.nodes[node]
      switch schema.node(parent: local.parent < 0 ? -1 : nodeMap[local.parent], key: local.key, isTable: local.isTable)
      {
      case .success(let id):
        nodeMap[node] = id
        if id != node { mapsToItself = false }
      case .failure(let error): throw problem(error.description)
      }
    }
    if mapsToItself { return frame }
    var values = [MeasurementValue](repeating: .absent, count: schema.count)
    for (node, value) in frame.values.enumerated() where nodeMap[node] >= 0 {
      values[nodeMap[node]] = value
    }
    frame.values = values
    return frame
  }

  private func problem(_ message: String) -> WorkbenchError {
    WorkbenchError(
      .input, message, at: SourceLocation(file: path, line: lineNumber),
      help: TraceReader.formatHelp)
  }

  private mutating func frame(from object: JSONObject) throws(WorkbenchError) -> MeasurementFrame {
    guard let tValue = object["t"] else { throw problem("missing \"t\" (the frame's time in seconds)") }
    guard let t = tValue.doubleValue, t.isFinite else {
      throw problem("\"t\" must be a number of seconds, not \(tValue.kindName)")
    }
    if let previousT, t < previousT {
      throw problem("time goes backwards: t = \(t) after t = \(previousT)")
    }
    previousT = t
    var index = frameCount
    if let frameValue = object["frame"] {
      guard let number = frameValue.integerValue, number >= 0 else {
        throw problem("\"frame\" must be a whole number ≥ 0")
      }
      index = number
    }
    frameCount += 1
    var frame = MeasurementFrame(t: t, index: index, values: [])
    frame.values.reserveCapacity(schema.count)
    for (key, value) in object where key != "t" && key != "frame" {
      try store(value, key: .name(key), parent: -1, in: &frame)
    }
    return frame
  }

  private func store(_ value: JSONValue, key: MeasurementKey, parent: Int, in frame: inout MeasurementFrame)
    throws(WorkbenchError)
  {
    // null only says "not measured in this frame" (absent is the default):
    // it adds no node, so it does not fix the field as a value or a table.
    if case .null = value { return }
    let isTable: Bool
    switch value {
    case .object, .array: isTable = true
    default: isTable = false
    }
    let id: Int
    switch schema.node(parent: parent, key: key, isTable: isTable) {
    case .success(let node): id = node
    case .failure(let error): throw problem(error.description)
    }
    switch value {
    case .null: return
    case .bool(let bool): frame[id] = .bool(bool)
    case .integer(let integer): frame[id] = .integer(integer)
    case .number(let number): frame[id] = .number(number)
    case .string(let string): frame[id] = .string(string)
    case .array(let array):
      frame[id] = .table
      for (position, element) in array.enumerated() {
        try store(element, key: .index(Int64(position + 1)), parent: id, in: &frame)
      }
    case .object(let object):
      frame[id] = .table
      for (childKey, child) in object {
        try store(child, key: .name(childKey), parent: id, in: &frame)
      }
    }
  }
}
