import CardGeometry
import Foundation

/// A straight line `normal · p = offset`, with a unit normal.
struct Line2: Equatable {
  var nx: Double
  var ny: Double
  var offset: Double

  init(nx: Double, ny: Double, offset: Double) {
    let length = max(1e-12, (nx * nx + ny * ny).squareRoot())
    self.nx = nx / length
    self.ny = ny / length
    self.offset = offset / length
  }

  /// The line through two points.
  init(through a: Point2, _ b: Point2) {
    self.init(nx: -(b.y - a.y), ny: b.x - a.x, offset: -(b.y - a.y) * a.x + (b.x - a.x) * a.y)
  }

  func distance(_ p: Point2) -> Double { nx * p.x + ny * p.y - offset }

  /// Where two lines cross; nil when (nearly) parallel.
  func intersection(_ other: Line2) -> Point2? {
    let det = nx * other.ny - ny * other.nx
    guard abs(det) > 1e-9 else { return nil }
    return Point2((offset * other.ny - ny * other.offset) / det, (nx * other.offset - offset * other.nx) / det)
  }

  /// The total-least-squares line through points; nil for fewer than two
  /// or a degenerate set.
  static func fit(_ xs: UnsafePointer<Double>, _ ys: UnsafePointer<Double>, count: Int, mask: UnsafePointer<Bool>)
    -> Line2?
  {
    var n = 0.0
    var mx = 0.0
    var my = 0.0
    for i in 0..<count where mask[i] {
      n += 1
      mx += xs[i]
      my += ys[i]
    }
    guard n >= 2 else { return nil }
    mx /= n
    my /= n
    var sxx = 0.0
    var sxy = 0.0
    var syy = 0.0
    for i in 0..<count where mask[i] {
      let dx = xs[i] - mx
      let dy = ys[i] - my
      sxx += dx * dx
      sxy += dx * dy
      syy += dy * dy
    }
    // The normal is the eigenvector of the smaller eigenvalue of the scatter.
    let angle = 0.5 * atan2(2 * sxy, sxx - syy)
    let nx = -sin(angle)
    let ny = cos(angle)
    return Line2(nx: nx, ny: ny, offset: nx * mx + ny * my)
  }
}

/// Quad helpers.
enum Quad {
  /// Twice the signed area; positive when the corners go clockwise on screen (y down).
  static func signedArea(_ q: [Point2]) -> Double {
    var sum = 0.0
    for i in 0..<q.count {
      let a = q[i]
      let b = q[(i + 1) % q.count]
      sum += a.x * b.y - b.x * a.y
    }
    return sum
  }

  static func isConvex(_ q: [Point2]) -> Bool {
    var sign = 0.0
    for i in 0..<4 {
      let a = q[i]
      let b = q[(i + 1) % 4]
      let c = q[(i + 2) % 4]
      let cross = (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x)
      if abs(cross) < 1e-9 { return false }
      if sign == 0 {
        sign = cross
      } else if (sign > 0) != (cross > 0) {
        return false
      }
    }
    return true
  }

  /// The same for four corners given one by one (no array).
  static func isConvex(_ a: Point2, _ b: Point2, _ c: Point2, _ d: Point2) -> Bool {
    func turn(_ p: Point2, _ q: Point2, _ r: Point2) -> Double { (q.x - p.x) * (r.y - q.y) - (q.y - p.y) * (r.x - q.x) }
    let t0 = turn(a, b, c)
    let t1 = turn(b, c, d)
    let t2 = turn(c, d, a)
    let t3 = turn(d, a, b)
    guard abs(t0) >= 1e-9, abs(t1) >= 1e-9, abs(t2) >= 1e-9, abs(t3) >= 1e-9 else { return false }
    return (t0 > 0) == (t1 > 0) && (t1 > 0) == (t2 > 0) && (t2 > 0) == (t3 > 0)
  }

  static func clockwise(_ q: [Point2]) -> [Point2] { signedArea(q) >= 0 ? q : [q[0], q[3], q[2], q[1]] }

}

/// A card whose outline is seen on three sides only (the fourth against a
/// background of the same colour, or under glare): two opposite sides and
/// the one joining them fix the card's plane for a camera of known focal
/// length, and the card's proportions then fix the fourth side.
enum CardCompletion {
  /// The corners `[a1 ∩ b, b ∩ a2, on a2, on a1]` of the card with sides on
  /// `a1` and `a2` (opposite each other) and `b`, seen by `camera` (pixel
  /// coordinates of the image the lines are in). `bIsWidth`: `b` is one of
  /// the long sides. `sign` (±1) chooses on which side of `b` the card lies.
  static func corners(a1: Line2, a2: Line2, b: Line2, camera: PinholeCamera, bIsWidth: Bool, sign: Double)
    -> [Point2]?
  {
    guard let p0 = a1.intersection(b), let p1 = b.intersection(a2),
      let plane = CardPlane(a1: a1, a2: a2, b: b, p0: p0, p1: p1, camera: camera),
      let (c2, c3) = plane.farCorners(bIsWidth: bIsWidth, sign: sign)
    else { return nil }
    return [p0, p1, c2, c3]
  }

  /// All four completions of the card with sides on `a1`, `a2` and `b`
  /// (`bIsWidth` true then false, each with `sign` +1 then −1), given to
  /// `body` as the corners `[a1 ∩ b, b ∩ a2, on a2, on a1]` of `corners`,
  /// without building arrays. `p0`, `p1`: a1 ∩ b and b ∩ a2.
  static func forEach(
    a1: Line2, a2: Line2, b: Line2, p0: Point2, p1: Point2, camera: PinholeCamera,
    _ body: (Point2, Point2, Point2, Point2) -> Void
  ) {
    guard let plane = CardPlane(a1: a1, a2: a2, b: b, p0: p0, p1: p1, camera: camera) else { return }
    for variant in 0..<4 {
      guard let (c2, c3) = plane.farCorners(bIsWidth: variant < 2, sign: variant % 2 == 0 ? 1 : -1) else { continue }
      body(p0, p1, c2, c3)
    }
  }

  /// The card's plane that the three lines fix, with the corners on `b`
  /// (`x0` = a1 ∩ b, `x1` = b ∩ a2) in camera coordinates.
  private struct CardPlane {
    let camera: PinholeCamera
    /// The direction of `a1` and `a2` in space.
    let along: Vector3
    let x0: Vector3
    let x1: Vector3

    init?(a1: Line2, a2: Line2, b: Line2, p0: Point2, p1: Point2, camera: PinholeCamera) {
      let f = camera.focal
      let cx = camera.centerX
      let cy = camera.centerY
      // A line of the image as a plane through the camera centre (its normal).
      func plane(_ line: Line2) -> Vector3 {
        Vector3(f * line.nx, f * line.ny, line.nx * cx + line.ny * cy - line.offset)
      }
      let first = plane(a1).cross(plane(a2))
      guard first.length > 1e-12 else { return nil }
      let along = first.normalized
      let across = along.cross(plane(b))
      guard across.length > 1e-12 else { return nil }
      let normal = along.cross(across.normalized)
      let r0 = Vector3((p0.x - cx) / f, (p0.y - cy) / f, 1)
      let r1 = Vector3((p1.x - cx) / f, (p1.y - cy) / f, 1)
      let k0 = normal.dot(r0)
      let k1 = normal.dot(r1)
      guard abs(k0) > 1e-12, abs(k1) > 1e-12, (k0 > 0) == (k1 > 0) else { return nil }
      self.camera = camera
      self.along = along
      x0 = r0 * (1 / abs(k0))
      x1 = r1 * (1 / abs(k1))
    }

    /// The corners on `a2` and on `a1` of the card lying on the `sign` side
    /// of `b`, in pixels; nil when they would be behind the camera.
    func farCorners(bIsWidth: Bool, sign: Double) -> (Point2, Point2)? {
      let lengthB = (x1 - x0).length
      let lengthA = bIsWidth ? lengthB / CardFormat.aspectRatio : lengthB * CardFormat.aspectRatio
      let x2 = x1 + along * (sign * lengthA)
      let x3 = x0 + along * (sign * lengthA)
      let nearest = 0.05 * min(x0.z, x1.z)
      guard x2.z > nearest, x3.z > nearest else { return nil }
      let f = camera.focal
      func project(_ x: Vector3) -> Point2 { Point2(f * x.x / x.z + camera.centerX, f * x.y / x.z + camera.centerY) }
      return (project(x2), project(x3))
    }
  }
}
