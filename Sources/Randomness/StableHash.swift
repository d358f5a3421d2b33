/// FNV-1a, 64 bits: the same number for the same bytes on every machine,
/// in every process and every release (Swift's own `Hasher` is seeded per
/// process), for names and shares that must not move: a corpus's shards,
/// cached files, fuzz inputs.
public enum StableHash {
  static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
  static let prime: UInt64 = 0x100_0000_01b3

  public static func of<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
    var hash = offsetBasis
    for byte in bytes {
      hash ^= UInt64(byte)
      hash = hash &* prime
    }
    return hash
  }

  /// Of the text's UTF-8 bytes.
  public static func of(_ text: String) -> UInt64 { of(text.utf8) }
}
