import Diagnostics
import JSONCore
import Measurements

/// Writes the measurements a flow saw, frame by frame, in the trace format
/// that `--input` reads (docs/traces.md), so a session can be replayed.
public final class TraceWriter {
  private let output: OutputFile
  private let encoder: TraceLineEncoder

  public init(path: String, schema: MeasurementSchema, header: JSONObject = JSONObject()) throws(WorkbenchError) {
    output = try OutputFile(path: path)
    encoder = TraceLineEncoder(schema: schema)
    var headerObject = JSONObject([("workbench_trace", .integer(1))])
    for (key, value) in header { headerObject[key] = value }
    var writer = JSONWriter()
    writer.value(.object(headerObject))
    writer.raw(UInt8(ascii: "\n"))
    output.write(writer.bytes)
  }

  public func write(_ frame: MeasurementFrame) {
    output.write(encoder.line(frame))
  }

  public func finish() throws(WorkbenchError) { try output.finish() }
}

/// One frame's measurements as one line of a trace (with its newline),
/// into a buffer it reuses: what the trace writer writes and the preview
/// sends.
public final class TraceLineEncoder {
  private let schema: MeasurementSchema
  private var children: [[Int]] = []
  private var topLevel: [Int] = []
  private var indexedNodes = 0
  private var writer = JSONWriter(capacity: 1024)

  public init(schema: MeasurementSchema) {
    self.schema = schema
  }

  private func indexNewNodes() {
    while indexedNodes < schema.count {
      let node = schema.nodes[indexedNodes]
      children.append([])
      if node.parent < 0 { topLevel.append(indexedNodes) } else { children[node.parent].append(indexedNodes) }
      indexedNodes += 1
    }
  }

  /// The line, with its newline.
  public func line(_ frame: MeasurementFrame) -> [UInt8] {
    indexNewNodes()
    writer.reset()
    writer.raw("{\"t\":")
    writer.number(frame.t)
    writer.raw(",\"frame\":")
    writer.integer(frame.index)
    for node in topLevel where frame[node] != .absent {
      writer.raw(UInt8(ascii: ","))
      writer.key(schema.nodes[node].path)
      writeValue(node, frame)
    }
    writer.raw("}\n")
    return writer.bytes
  }

  private func writeValue(_ node: Int, _ frame: MeasurementFrame) {
    switch frame[node] {
    case .absent: writer.raw("null")
    case .bool(let bool): writer.bool(bool)
    case .integer(let integer): writer.integer(integer)
    case .number(let number): writeFraction(number)
    case .string(let string): writer.string(string)
    case .table:
      let present = children[node].filter { frame[$0] != .absent }
      var byPosition: [Int64: Int] = [:]
      for child in present {
        if case .index(let position) = schema.nodes[child].key, position >= 1 { byPosition[position] = child }
      }
      if !present.isEmpty && byPosition.count == present.count, let last = byPosition.keys.max() {
        // An array: positions are written in order even if they were first
        // seen out of order, and absent ones as null so the rest keep theirs.
        writer.raw(UInt8(ascii: "["))
        for position in 1...last {
          if position > 1 { writer.raw(UInt8(ascii: ",")) }
          if let child = byPosition[position] { writeValue(child, frame) } else { writer.raw("null") }
        }
        writer.raw(UInt8(ascii: "]"))
      } else {
        writer.raw(UInt8(ascii: "{"))
        for (position, child) in present.enumerated() {
          if position > 0 { writer.raw(UInt8(ascii: ",")) }
          writer.key(schema.nodes[child].key.description)
          writeValue(child, frame)
        }
        writer.raw(UInt8(ascii: "}"))
      }
    }
  }

  /// A fraction stays a fraction when read back (32.0, not 32), so a
  /// replay gives the flow the same Lua number types as the original run.
  private func writeFraction(_ number: Double) {
    let start = writer.bytes.count
    writer.number(number)
    guard number.isFinite else { return }
    let written = writer.bytes[start...]
    if !written.contains(UInt8(ascii: ".")) && !written.contains(UInt8(ascii: "e")) { writer.raw(".0") }
  }
}
