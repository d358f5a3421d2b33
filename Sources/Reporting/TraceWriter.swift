import Diagnostics
import JSONCore
import Measurements

/// Writes the measurements a flow saw, frame by frame, in the trace format
/// that `--input` reads (docs/traces.md), so a session can be replayed.
public final class TraceWriter {
  private let output: OutputFile
  private let schema: MeasurementSchema
  private var children: [[Int]] = []
  private var topLevel: [Int] = []
  private var indexedNodes = 0
  private var writer = JSONWriter(capacity: 1024)

  public init(path: String, schema: MeasurementSchema, header: JSONObject = JSONObject()) throws(WorkbenchError) {
    output = try OutputFile(path: path)
    self.schema = schema
    var headerObject = JSONObject([("workbench_trace", .integer(1))])
    for (key, value) in header { headerObject[key] = value }
    writer.value(.object(headerObject))
    writer.raw(UInt8(ascii: "\n"))
    output.write(writer.bytes)
  }

  private func indexNewNodes() {
    while indexedNodes < schema.count {
      let node = schema.nodes[indexedNodes]
      children.append([])
      if node.parent < 0 { topLevel.append(indexedNodes) } else { children[node.parent].append(indexedNodes) }
      indexedNodes += 1
    }
  }

  public func write(_ frame: MeasurementFrame) {
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
    output.write(writer.bytes)
  }

  private func writeValue(_ node: Int, _ frame: MeasurementFrame) {
    switch frame[node] {
    case .absent: writer.raw("null")
    case .bool(let bool): writer.bool(bool)
    case .integer(let integer): writer.integer(integer)
    case .number(let number): writer.number(number)
    case .string(let string): writer.string(string)
    case .table:
      let present = children[node].filter { frame[$0] != .absent }
      let isArray = present.enumerated().allSatisfy { position, child in
        schema.nodes[child].key == .index(Int64(position + 1))
      }
      if isArray && !present.isEmpty {
        // Array positions are written in order even if they were first seen out of order.
        let ordered = present.sorted {
          if case .index(let a) = schema.nodes[$0].key, case .index(let b) = schema.nodes[$1].key { return a < b }
          return false
        }
        writer.raw(UInt8(ascii: "["))
        for (position, child) in ordered.enumerated() {
          if position > 0 { writer.raw(UInt8(ascii: ",")) }
          writeValue(child, frame)
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

  public func finish() throws(WorkbenchError) { try output.finish() }
}
