// The axes of area and bilinear resampling that ImageConversion scales images with.

/// Rounded division by a fixed divisor with a multiply instead of a divide
/// instruction, which would cost more than the rest of a resized pixel. The
/// reciprocal ceil(2^64 / d) gives exact quotients for dividends below
/// 2^64 / d; ours stay below 257 d, so divisors up to 2^28 (any image up to
/// 8K either way) qualify, and larger ones fall back to dividing.
struct RoundingDivider {
  let divisor: UInt64
  let reciprocal: UInt64
  let usesReciprocal: Bool

  init(_ divisor: UInt64) {
    self.divisor = divisor
    usesReciprocal = divisor > 1 && divisor < 1 << 28
    reciprocal = usesReciprocal ? UInt64.max / divisor &+ 1 : 0
  }

  @inline(__always)
  func roundedQuotient(_ dividend: UInt64) -> UInt64 {
    let rounded = dividend &+ divisor / 2
    if usesReciprocal { return rounded.multipliedFullWidth(by: reciprocal).high }
    return rounded / divisor
  }
}

/// Walks the target pixels of one axis in order, giving for each the source
/// pixels it reads (`first`, `tapCount`) and their integer weights, which
/// sum to `denominator`. Stepping replaces per-pixel divisions, and nothing
/// is tabulated, so resizing needs no scratch memory.
protocol ResamplingAxis {
  init(sourceLength: Int, targetLength: Int)
  var denominator: Int { get }
  var first: Int { get }
  var tapCount: Int { get }
  func weight(_ tap: Int) -> UInt64
  mutating func advance()
}

/// Shrinking: the exact overlap of each source pixel with the target pixel,
/// in units where a source pixel is `targetLength` wide and a target pixel
/// `sourceLength` wide. Only the first and last taps can overlap partly;
/// the ones between weigh a whole source pixel.
struct AreaAxis: ResamplingAxis {
  let sourceLength: Int
  let targetLength: Int
  // The current target pixel spans [start, end); source pixel `first` ends
  // at `firstEnd`, source pixel `last` starts at `lastStart`.
  private var start = 0
  private var end: Int
  private(set) var first = 0
  private var firstEnd: Int
  private var last = 0
  private var lastStart = 0
  private(set) var tapCount = 0
  private var firstWeight: UInt64 = 0
  private var lastWeight: UInt64 = 0

  init(sourceLength: Int, targetLength: Int) {
    self.sourceLength = sourceLength
    self.targetLength = targetLength
    end = sourceLength
    firstEnd = targetLength
    settle()
  }

  var denominator: Int { sourceLength }

  @inline(__always)
  func weight(_ tap: Int) -> UInt64 {
    if tap == 0 { return firstWeight }
    return tap == tapCount &- 1 ? lastWeight : UInt64(truncatingIfNeeded: targetLength)
  }

  @inline(__always)
  mutating func advance() {
    start = end
    end &+= sourceLength
    while firstEnd <= start {
      first &+= 1
      firstEnd &+= targetLength
    }
    settle()
  }

  @inline(__always)
  private mutating func settle() {
    if last < first {
      last = first
      lastStart = firstEnd &- targetLength
    }
    while lastStart &+ targetLength < end {
      last &+= 1
      lastStart &+= targetLength
    }
    tapCount = last &- first &+ 1
    firstWeight = UInt64(truncatingIfNeeded: min(firstEnd, end) &- start)
    lastWeight = UInt64(truncatingIfNeeded: end &- lastStart)
  }
}

/// Growing: linear between the two nearest source pixel centres, with
/// positions in halves of a target pixel (units of `1 / (2 × targetLength)`
/// source pixels) so that every centre falls on a whole unit. Beyond the
/// first and last centres the edge pixel is repeated.
struct LinearAxis: ResamplingAxis {
  let sourceLength: Int
  let unit: Int
  // Position of the current target centre: floor part and remainder in units.
  private var lowerSource: Int
  private var fraction: Int
  private(set) var first = 0
  private(set) var tapCount = 1
  /// The weight of the second tap (0 with one tap); the first has the rest.
  private(set) var upperWeight: UInt64 = 0

  init(sourceLength: Int, targetLength: Int) {
    self.sourceLength = sourceLength
    unit = 2 &* targetLength
    // Target 0's centre is at (sourceLength − targetLength) units, in (−unit, 0).
    lowerSource = -1
    fraction = sourceLength &- targetLength &+ unit
    settle()
  }

  var denominator: Int { unit }

  @inline(__always)
  func weight(_ tap: Int) -> UInt64 {
    tap == 0 ? UInt64(truncatingIfNeeded: unit) &- upperWeight : upperWeight
  }

  @inline(__always)
  mutating func advance() {
    fraction &+= 2 &* sourceLength
    while fraction >= unit {
      fraction &-= unit
      lowerSource &+= 1
    }
    settle()
  }

  @inline(__always)
  private mutating func settle() {
    if lowerSource < 0 {
      first = 0
      tapCount = 1
      upperWeight = 0
    } else if lowerSource >= sourceLength &- 1 {
      first = sourceLength &- 1
      tapCount = 1
      upperWeight = 0
    } else {
      first = lowerSource
      tapCount = 2
      upperWeight = UInt64(truncatingIfNeeded: fraction)
    }
  }
}
