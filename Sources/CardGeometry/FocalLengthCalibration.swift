import Foundation

/// Estimates a camera's focal length from views of a rectangle whose shape
/// is known (the card), when nobody said what the camera is.
///
/// A homography from the card's plane to the image is `K · [r1 r2 t]` up to
/// scale, with `K` = diag(f, f, 1) about the principal point. Its first two
/// columns are a rotation's, so they are orthogonal and of equal length
/// once `K` is taken out: two equations, each linear in u = (f₀ / f)², where
/// f₀ is any focal length the columns were first divided by (Zhang's
/// calibration constraints, with the principal point at the centre and
/// square pixels). A card facing the camera says nothing (both sides of both
/// equations vanish); the more it is tilted, the more it tells, so each view
/// gives an estimate with a weight that grows as sin⁴ of its tilt.
///
/// The estimate is the weighted median of the last `capacity` views, so a
/// few views of a wrong quadrilateral do not move it. Allocation-free after
/// `init`.
public struct FocalLengthCalibration: Sendable {
  /// A view counts when its weight is at least this: a tilt of about 12°.
  public static let minimumViewWeight = 0.002
  /// The estimate is given once the views weigh this much together (one
  /// view at about 25°, or several smaller ones) …
  public static let minimumTotalWeight = 0.03
  /// … from at least this many views.
  public static let minimumViews = 3
  /// Focal lengths for a horizontal field of view from 15° to 130° of the
  /// frame width: anything else is a wrong quadrilateral.
  public static let fieldOfViewRange = 15.0...130.0

  private let capacity: Int
  private var focals: [Double]
  private var weights: [Double]
  private var next = 0
  private var count = 0
  private var order: [Int]
  /// The estimate, pixels of the images the homographies map to; nil until
  /// the views say enough.
  public private(set) var focal: Double?

  public init(capacity: Int = 256) {
    self.capacity = max(1, capacity)
    focals = [Double](repeating: 0, count: self.capacity)
    weights = [Double](repeating: 0, count: self.capacity)
    order = []
    order.reserveCapacity(self.capacity)
  }

  /// Forgets every view (another camera).
  public mutating func reset() {
    next = 0
    count = 0
    focal = nil
  }

  /// The focal length one view gives and how much it tells: `h` maps the
  /// card's plane (any unit) to the pixels of an image `width` × `height`
  /// whose principal point is its centre. Nil when the view says nothing or
  /// gives no real focal length.
  public static func view(_ h: Homography, width: Int, height: Int) -> (focal: Double, weight: Double)? {
    let cx = Double(width - 1) / 2
    let cy = Double(height - 1) / 2
    // Scale the image axes by a nominal focal length, so both kinds of term
    // are of the same order, then the whole matrix, so views at any distance
    // weigh alike.
    let nominal = PinholeCamera.focal(width: width)
    var g1 = h.matrix.column(0)
    var g2 = h.matrix.column(1)
    g1 = Vector3((g1.x - cx * g1.z) / nominal, (g1.y - cy * g1.z) / nominal, g1.z)
    g2 = Vector3((g2.x - cx * g2.z) / nominal, (g2.y - cy * g2.z) / nominal, g2.z)
    let planar = ((g1.x * g1.x + g1.y * g1.y + g2.x * g2.x + g2.y * g2.y) / 2).squareRoot()
    guard planar > 1e-12, planar.isFinite else { return nil }
    g1 = g1 * (1 / planar)
    g2 = g2 * (1 / planar)
    let a1 = g1.x * g2.x + g1.y * g2.y
    let b1 = g1.z * g2.z
    let a2 = g1.x * g1.x + g1.y * g1.y - g2.x * g2.x - g2.y * g2.y
    let b2 = g1.z * g1.z - g2.z * g2.z
    let weight = a1 * a1 + a2 * a2
    guard weight > 1e-12 else { return nil }
    let u = -(a1 * b1 + a2 * b2) / weight
    guard u > 1e-6, u.isFinite else { return nil }
    // The equations were scaled by 1/u: their weight in the unknown u.
    let focal = nominal / u.squareRoot()
    let fieldOfView = 2 * atan(Double(width) / 2 / focal) * 180 / .pi
    guard fieldOfViewRange.contains(fieldOfView) else { return nil }
    return (focal, weight)
  }

  /// Takes one view into account (see `view`); returns whether it counted.
  /// `scale`: the size of the frame as captured over that of the image `h`
  /// maps to; the estimate is in pixels of the frame as captured.
  @discardableResult
  public mutating func add(_ h: Homography, width: Int, height: Int, scale: Double = 1) -> Bool {
    guard let (viewFocal, weight) = Self.view(h, width: width, height: height), weight >= Self.minimumViewWeight
    else { return false }
    focals[next] = viewFocal * scale
    weights[next] = weight
    next = (next + 1) % capacity
    count = min(count + 1, capacity)
    focal = weightedMedian()
    return true
  }

  private mutating func weightedMedian() -> Double? {
    guard count >= Self.minimumViews else { return nil }
    order.removeAll(keepingCapacity: true)
    var total = 0.0
    for index in 0..<count {
      order.append(index)
      total += weights[index]
    }
    guard total >= Self.minimumTotalWeight else { return nil }
    order.sort { focals[$0] < focals[$1] }
    var running = 0.0
    for index in order {
      running += weights[index]
      if running >= total / 2 { return focals[index] }
    }
    return focals[order[order.count - 1]]
  }
}
