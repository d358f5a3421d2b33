/// SplitMix64: small, fast, and the same on every platform, so that a seed
/// means the same step order, fault pattern and synthetic scene forever.
/// The standard library's generators and shuffles may change between
/// releases; this one must not (golden sequences in RandomnessTests).
public struct SeededRandom: RandomNumberGenerator, Sendable {
  private var state: UInt64
  static let gamma: UInt64 = 0x9E37_79B9_7F4A_7C15

  /// The generator whose first output mixes `seed` twice (scenes, textures,
  /// benchmarks).
  public init(seed: UInt64) { state = seed &+ Self.gamma }

  /// The generator whose state starts at `state` (a flow's step order and
  /// the QA faults): its first output mixes the state once.
  public init(state: UInt64) { self.state = state }

  public mutating func next() -> UInt64 {
    state &+= Self.gamma
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A number in [0, 1), from the top 53 bits.
  public mutating func nextDouble() -> Double { Double(next() >> 11) / Double(1 << 53) }

  /// Uniform in [low, high).
  public mutating func uniform(_ low: Double, _ high: Double) -> Double {
    low + (high - low) * Double(next() >> 11) / Double(1 << 53)
  }

  public mutating func integer(_ range: ClosedRange<Int>) -> Int {
    range.lowerBound + Int(next() % UInt64(range.count))
  }
}
