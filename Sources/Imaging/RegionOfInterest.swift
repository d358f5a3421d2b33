/// A rectangle of an image in pixels: columns `x..<x+width`, rows `y..<y+height`.
/// Estimators get regions from detectors that may overshoot the frame;
/// `clamped` makes any such rectangle safe to index with.
public struct RegionOfInterest: Sendable, Equatable, CustomStringConvertible {
  public var x: Int
  public var y: Int
  public var width: Int
  public var height: Int

  public init(x: Int, y: Int, width: Int, height: Int) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }

  /// The whole of `image`.
  public init(of image: ImageBuffer) {
    self.init(x: 0, y: 0, width: image.width, height: image.height)
  }

  public var isEmpty: Bool { width <= 0 || height <= 0 }
  /// Pixels covered, saturating at `Int.max` for absurd regions.
  public var area: Int {
    guard !isEmpty else { return 0 }
    let (product, overflow) = width.multipliedReportingOverflow(by: height)
    return overflow ? Int.max : product
  }

  public func contains(x pointX: Int, y pointY: Int) -> Bool {
    !isEmpty && pointX >= x && pointY >= y && pointX < Self.end(x, width) && pointY < Self.end(y, height)
  }

  /// The part of this region inside a `imageWidth`×`imageHeight` image. A
  /// region wholly outside becomes empty (width or height 0) at the nearest
  /// edge; nothing overflows, whatever the values.
  public func clamped(toWidth imageWidth: Int, height imageHeight: Int) -> RegionOfInterest {
    let (left, right) = Self.clampedSpan(start: x, length: width, limit: imageWidth)
    let (top, bottom) = Self.clampedSpan(start: y, length: height, limit: imageHeight)
    return RegionOfInterest(x: left, y: top, width: right - left, height: bottom - top)
  }

  public func clamped(to image: ImageBuffer) -> RegionOfInterest {
    clamped(toWidth: image.width, height: image.height)
  }

  public var description: String { "\(width)×\(height) at (\(x), \(y))" }

  /// `start + length` for a non-negative length, saturating instead of trapping.
  private static func end(_ start: Int, _ length: Int) -> Int {
    let (sum, overflow) = start.addingReportingOverflow(max(0, length))
    return overflow ? Int.max : sum
  }

  private static func clampedSpan(start: Int, length: Int, limit: Int) -> (Int, Int) {
    let limit = max(0, limit)
    let lower = min(max(start, 0), limit)
    let upper = min(max(end(start, length), lower), limit)
    return (lower, upper)
  }
}
