import Foundation

/// The input shape an ONNX file declares, read from its protobuf without a
/// protobuf library: the model's first graph input that is not a weight
/// (older exporters list the weights as inputs too). OpenCV runs many
/// models on any input size without a complaint, and a model fed a size it
/// was not made for gives a wrong answer, not an error: this is how a
/// wrong `pad.input_size` is caught at load.
enum ONNXInputShape {
  /// Each dimension's size, nil for a named (dynamic) one; nil when the
  /// file does not say.
  static func read(path: String) -> [Int?]? {
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    return [UInt8](data).withUnsafeBufferPointer { bytes in
      guard let graph = field(7, in: bytes).last else { return nil }
      let weights = Set(field(5, in: graph).compactMap { string(field(8, in: $0).first) })
      for input in field(11, in: graph) {
        guard let name = string(field(1, in: input).first), !weights.contains(name) else { continue }
        guard let type = field(2, in: input).first, let tensor = field(1, in: type).first,
          let shape = field(2, in: tensor).first
        else { return nil }
        return field(1, in: shape).map { dimension in
          var reader = Reader(dimension)
          while let (number, wire) = reader.key() {
            if number == 1, wire == 0 { return reader.varint().map { Int(truncatingIfNeeded: $0) } }
            reader.skip(wire)
          }
          return nil
        }
      }
      return nil
    }
  }

  /// The length-delimited values of field `number` of a message.
  private static func field(_ number: UInt64, in message: UnsafeBufferPointer<UInt8>) -> [UnsafeBufferPointer<UInt8>] {
    var reader = Reader(message)
    var found: [UnsafeBufferPointer<UInt8>] = []
    while let (fieldNumber, wire) = reader.key() {
      if wire == 2, let value = reader.delimited() {
        if fieldNumber == number { found.append(value) }
      } else if !reader.skip(wire) {
        break
      }
    }
    return found
  }

  private static func string(_ bytes: UnsafeBufferPointer<UInt8>?) -> String? {
    bytes.map { String(decoding: $0, as: UTF8.self) }
  }

  private struct Reader {
    let bytes: UnsafeBufferPointer<UInt8>
    var offset = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func varint() -> UInt64? {
      var value: UInt64 = 0
      var shift: UInt64 = 0
      while offset < bytes.count, shift < 64 {
        let byte = bytes[offset]
        offset += 1
        value |= UInt64(byte & 0x7F) << shift
        if byte < 0x80 { return value }
        shift += 7
      }
      return nil
    }

    mutating func key() -> (UInt64, UInt64)? {
      guard offset < bytes.count, let key = varint() else { return nil }
      return (key >> 3, key & 7)
    }

    mutating func delimited() -> UnsafeBufferPointer<UInt8>? {
      guard let length = varint(), length <= UInt64(bytes.count - offset) else { return nil }
      let start = offset
      offset += Int(length)
      return UnsafeBufferPointer(rebasing: bytes[start..<offset])
    }

    @discardableResult
    mutating func skip(_ wire: UInt64) -> Bool {
      switch wire {
      case 0: return varint() != nil
      case 1: offset += 8
      case 2: return delimited() != nil
      case 5: offset += 4
      default: return false
      }
      return offset <= bytes.count
    }
  }
}
