/// A face's 128 numbers from the recognition network: two faces of the same
/// person lie close together (Euclidean distance under about 0.6), two
/// people far apart.
public struct FaceDescriptor: Sendable, Equatable {
  public static let length = 128
  /// The bytes of a descriptor stored as 128 little-endian float32.
  public static let byteCount = length * 4

  public let values: [Float]

  /// Nil unless there are exactly 128 finite values.
  public init?(values: [Float]) {
    guard values.count == Self.length, values.allSatisfy(\.isFinite) else { return nil }
    self.values = values
  }

  /// From 128 little-endian float32, as `bytes` gives them.
  public init?(bytes: some Collection<UInt8>) {
    guard bytes.count == Self.byteCount else { return nil }
    var values = [Float](repeating: 0, count: Self.length)
    var iterator = bytes.makeIterator()
    for index in 0..<Self.length {
      var bits: UInt32 = 0
      for shift in stride(from: 0, to: 32, by: 8) { bits |= UInt32(iterator.next()!) << UInt32(shift) }
      values[index] = Float(bitPattern: bits)
    }
    self.init(values: values)
  }

  /// 128 little-endian float32.
  public var bytes: [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(Self.byteCount)
    for value in values {
      let bits = value.bitPattern
      for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt32(shift))) }
    }
    return bytes
  }

  public func distance(to other: FaceDescriptor) -> Float {
    var sum: Float = 0
    for index in 0..<Self.length {
      let difference = values[index] - other.values[index]
      sum += difference * difference
    }
    return sum.squareRoot()
  }
}

/// Same person or not: a distance against the threshold (dlib's 0.6 by
/// default, the setting `gallery.threshold`).
public struct FaceMatch: Sendable, Equatable {
  public var distance: Float
  public var threshold: Float

  public init(distance: Float, threshold: Float) {
    self.distance = distance
    self.threshold = threshold
  }

  /// A distance equal to the threshold is not a match.
  public var isMatch: Bool { distance < threshold }
}
