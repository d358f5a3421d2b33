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

  static func clockwise(_ q: [Point2]) -> [Point2] { signedArea(q) >= 0 ? q : [q[0], q[3], q[2], q[1]] }
}
