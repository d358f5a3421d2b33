import Foundation

/// Looks over a binary property list before Foundation reads it.
///
/// Foundation's reader builds a set from whatever objects a damaged file
/// names, and bridging that set to Swift crashes the process (found by
/// fuzzing). A license configuration is a dictionary of strings and
/// numbers: a list whose structure is out of bounds, or that holds a set,
/// a UID or an unknown kind of object, is refused here instead.
enum BinaryPropertyListCheck {
  /// Why `data` (which starts with "bplist") must not be read, or nil.
  static func problem(in data: Data) -> String? {
    let bytes = [UInt8](data)
    guard bytes.count >= 8 + 32 else { return "it is cut short" }
    let trailer = bytes.count - 32
    let offsetSize = Int(bytes[trailer + 6])
    let referenceSize = Int(bytes[trailer + 7])
    guard [1, 2, 4, 8].contains(offsetSize), [1, 2, 4, 8].contains(referenceSize),
      let objectCount = integer(bytes, at: trailer + 8, size: 8),
      let topObject = integer(bytes, at: trailer + 16, size: 8),
      let tableOffset = integer(bytes, at: trailer + 24, size: 8),
      objectCount > 0, objectCount <= bytes.count, topObject < objectCount, tableOffset >= 8,
      tableOffset <= trailer, objectCount <= (trailer - tableOffset) / offsetSize
    else { return "its trailer or offset table is damaged" }
    for index in 0..<objectCount {
      guard let offset = integer(bytes, at: tableOffset + index * offsetSize, size: offsetSize),
        offset >= 8, offset < tableOffset
      else { return "object \(index) lies outside the file" }
      switch bytes[offset] >> 4 {
      case 0x0, 0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 0xA, 0xD: continue
      case 0xC: return "it holds a set, which a license configuration never has"
      default: return "object \(index) is of an unknown kind (0x\(String(bytes[offset], radix: 16)))"
      }
    }
    return nil
  }

  /// A big-endian unsigned integer of `size` bytes, if it fits in the file and in an Int.
  private static func integer(_ bytes: [UInt8], at offset: Int, size: Int) -> Int? {
    guard offset >= 0, offset <= bytes.count - size else { return nil }
    var value: UInt64 = 0
    for byte in bytes[offset..<(offset + size)] { value = value << 8 | UInt64(byte) }
    return value <= UInt64(Int.max) ? Int(value) : nil
  }
}
