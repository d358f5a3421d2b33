import Diagnostics
import Foundation
import JSONCore

/// A whole trace read once, for runs that replay the same trace many times
/// (an evaluation's sessions and settings points): its frames in a schema of
/// its own, which each replay maps into its run's schema, as reading the
/// file would have built it. A trace whose reading fails part way keeps the
/// frames before the failure and the failure, which a replay gives at the
/// same frame.
///
/// It also has a compact binary form (``encoded()``, ``init(path:encoded:)``)
/// that a cache keeps beside the trace: reading it costs a small part of
/// parsing the trace's JSON again.
public final class ReadTrace: Sendable {
  public let path: String
  public let header: JSONObject?
  let nodes: [MeasurementSchema.Node]
  let frames: [MeasurementFrame]
  /// The line of each frame in the file, for the errors of a replay.
  let lineNumbers: [Int]
  /// Why reading stopped before the end of the file, after `frames`.
  let ending: WorkbenchError?

  /// Reads the trace at `path`; throws only when it cannot be opened.
  public init(path: String) throws(WorkbenchError) {
    self.path = path
    let schema = MeasurementSchema()
    var reader = try TraceReader(path: path, schema: schema)
    var frames: [MeasurementFrame] = []
    var numbers: [Int] = []
    var ending: WorkbenchError?
    do {
      while let frame = try reader.next() {
        frames.append(frame)
        numbers.append(reader.lineNumber)
      }
    } catch {
      ending = error
    }
    header = reader.header
    nodes = schema.nodes
    self.frames = frames
    lineNumbers = numbers
    self.ending = ending
  }

  /// Frames in it (the header line not counted).
  public var count: Int { frames.count }

  private init(
    path: String, header: JSONObject?, nodes: [MeasurementSchema.Node], frames: [MeasurementFrame], lineNumbers: [Int]
  ) {
    self.path = path
    self.header = header
    self.nodes = nodes
    self.frames = frames
    self.lineNumbers = lineNumbers
    ending = nil
  }

  static let magic = Array("WBTRACE\u{1}".utf8)
  static let encodingVersion: UInt32 = 2

  /// The binary form, or nil for a trace whose reading failed (it is read
  /// from its JSON again, to fail the same way).
  public func encoded() -> [UInt8]? {
    guard ending == nil else { return nil }
    var out = ByteWriter()
    out.bytes(ReadTrace.magic)
    out.uint32(ReadTrace.encodingVersion)
    out.string(header.map { JSONValue.object($0).jsonText } ?? "")
    out.uint32(UInt32(nodes.count))
    for node in nodes {
      out.int64(Int64(node.parent))
      out.byte(node.isTable ? 1 : 0)
      // A key is a string (a name) or an integer (a position), as a value is.
      switch node.key {
      case .name(let name): out.value(.string(name))
      case .index(let index): out.value(.integer(index))
      }
    }
    out.uint32(UInt32(frames.count))
    for (frame, line) in zip(frames, lineNumbers) {
      out.double(frame.t)
      out.int64(frame.index)
      out.int64(Int64(line))
      out.uint32(UInt32(frame.values.count))
      for value in frame.values { out.value(value) }
    }
    return out.data
  }

  /// The trace of `path` from its binary form; nil when `data` is not one
  /// this workbench wrote (another version, a damaged or foreign file).
  public convenience init?(path: String, encoded data: [UInt8]) {
    guard
      let (header, nodes, frames, lineNumbers) = data.withUnsafeBytes({ raw in
        var input = ByteReader(raw)
        return ReadTrace.decode(&input)
      })
    else { return nil }
    self.init(path: path, header: header, nodes: nodes, frames: frames, lineNumbers: lineNumbers)
  }

  private static func decode(_ input: inout ByteReader) -> (
    JSONObject?, [MeasurementSchema.Node], [MeasurementFrame], [Int]
  )? {
    guard input.bytes(ReadTrace.magic.count) == ReadTrace.magic, input.uint32() == ReadTrace.encodingVersion,
      let headerText = input.string()
    else { return nil }
    var header: JSONObject?
    if !headerText.isEmpty {
      guard case .object(let object) = try? JSONParser.parse(headerText) else { return nil }
      header = object
    }
    guard let nodeCount = input.count(atLeast: 10) else { return nil }
    var nodes: [MeasurementSchema.Node] = []
    nodes.reserveCapacity(nodeCount)
    for id in 0..<nodeCount {
      guard let parent = input.int64(), parent >= -1, parent < id, let isTable = input.byte() else { return nil }
      let key: MeasurementKey
      switch input.value() {
      case .string(let name)?: key = .name(name)
      case .integer(let index)?: key = .index(index)
      default: return nil
      }
      let parentNode = parent < 0 ? nil : nodes[Int(parent)]
      guard parentNode?.isTable ?? true else { return nil }
      let path = parentNode.map { $0.path + "." + key.description } ?? key.description
      nodes.append(MeasurementSchema.Node(parent: Int(parent), key: key, isTable: isTable == 1, path: path))
    }
    guard let frameCount = input.count(atLeast: 28) else { return nil }
    var frames: [MeasurementFrame] = []
    var lineNumbers: [Int] = []
    frames.reserveCapacity(frameCount)
    lineNumbers.reserveCapacity(frameCount)
    for _ in 0..<frameCount {
      guard let t = input.double(), let index = input.int64(), let line = input.int64(),
        let valueCount = input.count(atLeast: 1), valueCount <= nodes.count
      else { return nil }
      var values: [MeasurementValue] = []
      values.reserveCapacity(valueCount)
      for _ in 0..<valueCount {
        guard let value = input.value() else { return nil }
        values.append(value)
      }
      frames.append(MeasurementFrame(t: t, index: index, values: values))
      lineNumbers.append(Int(line))
    }
    guard input.isAtEnd else { return nil }
    return (header, nodes, frames, lineNumbers)
  }
}

/// Little-endian fields appended to a byte array.
private struct ByteWriter {
  var data: [UInt8] = []

  mutating func bytes(_ bytes: [UInt8]) { data += bytes }
  mutating func byte(_ byte: UInt8) { data.append(byte) }
  mutating func uint32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data += $0 } }
  mutating func int64(_ value: Int64) { withUnsafeBytes(of: value.littleEndian) { data += $0 } }
  mutating func double(_ value: Double) { int64(Int64(bitPattern: value.bitPattern)) }
  mutating func string(_ text: String) {
    uint32(UInt32(text.utf8.count))
    data += text.utf8
  }

  /// A tag byte, then the value's bytes.
  mutating func value(_ value: MeasurementValue) {
    switch value {
    case .absent: byte(0)
    case .bool(let bool): byte(bool ? 2 : 1)
    case .integer(let integer):
      byte(3)
      int64(integer)
    case .number(let number):
      byte(4)
      double(number)
    case .string(let text):
      byte(5)
      string(text)
    case .table: byte(6)
    }
  }
}

/// The fields of ``ByteWriter`` read back; nil past the end.
private struct ByteReader {
  let data: UnsafeRawBufferPointer
  var position = 0

  init(_ data: UnsafeRawBufferPointer) { self.data = data }

  var isAtEnd: Bool { position == data.count }

  mutating func bytes(_ count: Int) -> [UInt8]? {
    guard count <= data.count - position else { return nil }
    defer { position += count }
    return Array(data[position..<position + count])
  }

  mutating func byte() -> UInt8? {
    guard position < data.count else { return nil }
    defer { position += 1 }
    return data[position]
  }

  mutating func integer<Value: FixedWidthInteger>(_: Value.Type) -> Value? {
    let size = MemoryLayout<Value>.size
    guard size <= data.count - position else { return nil }
    defer { position += size }
    return Value(littleEndian: data.loadUnaligned(fromByteOffset: position, as: Value.self))
  }

  mutating func uint32() -> UInt32? { integer(UInt32.self) }
  mutating func int64() -> Int64? { integer(Int64.self) }
  mutating func double() -> Double? { integer(UInt64.self).map { Double(bitPattern: $0) } }

  /// A count of items of at least `size` bytes each, refused when the
  /// rest of the data could not hold that many.
  mutating func count(atLeast size: Int) -> Int? {
    guard let count = uint32().map(Int.init), count <= (data.count - position) / size else { return nil }
    return count
  }

  mutating func value() -> MeasurementValue? {
    switch byte() {
    case 0: return .absent
    case 1: return .bool(false)
    case 2: return .bool(true)
    case 3: return int64().map(MeasurementValue.integer)
    case 4: return double().map(MeasurementValue.number)
    case 5: return string().map(MeasurementValue.string)
    case 6: return .table
    default: return nil
    }
  }

  mutating func string() -> String? {
    guard let length = count(atLeast: 1) else { return nil }
    defer { position += length }
    return String(validating: UnsafeRawBufferPointer(rebasing: data[position..<position + length]), as: UTF8.self)
  }
}
