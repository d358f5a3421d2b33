import Randomness
import Testing

struct StableHashTests {
  /// The FNV-1a 64-bit test vectors of its authors: a change here moves
  /// every corpus shard and cached name.
  @Test func givesTheFNV1aTestVectors() {
    #expect(StableHash.of("") == 0xcbf2_9ce4_8422_2325)
    #expect(StableHash.of("a") == 0xaf63_dc4c_8601_ec8c)
    #expect(StableHash.of("foobar") == 0x8594_4171_f739_67e8)
    #expect(StableHash.of(Array("foobar".utf8)) == StableHash.of("foobar"))
  }
}
