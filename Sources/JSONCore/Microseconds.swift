extension Double {
  /// This time in seconds to the nearest microsecond, as every record
  /// writes times: float noise from frame arithmetic (5/30 + 0.2 against
  /// 11/30) never changes the bytes written, and a time read back compares
  /// equal to the one written.
  @inlinable public var roundedToMicroseconds: Double { (self * 1_000_000).rounded() / 1_000_000 }
}
