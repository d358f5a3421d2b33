import MotionCues
import Testing

@Suite("A homography fitted to points (normalised DLT)")
struct PlanarFitTests {
  /// Points of a face-sized pattern, x, y pairs.
  static let points: [Double] = [
    100, 100, 140, 102, 200, 101, 240, 99, 170, 120, 170, 170, 171, 185, 130, 220, 210, 222, 170, 270, 80, 160, 260,
    158, 170, 40,
  ]

  static func mapped(_ points: [Double], by h: [Double]) -> [Double] {
    var out: [Double] = []
    for index in stride(from: 0, to: points.count, by: 2) {
      let (x, y) = (points[index], points[index + 1])
      let w = h[6] * x + h[7] * y + h[8]
      out += [(h[0] * x + h[1] * y + h[2]) / w, (h[3] * x + h[4] * y + h[5]) / w]
    }
    return out
  }

  func residual(_ from: [Double], _ to: [Double]) -> Double? {
    var fit = PlanarFit(capacity: 16)
    return from.withUnsafeBufferPointer { a in
      to.withUnsafeBufferPointer { b in fit.residual(from: a, to: b, count: from.count / 2) }
    }
  }

  @Test("points moved by a homography fit it to a thousandth of a pixel")
  func exactHomography() throws {
    let h = [1.05, 0.08, 12, -0.06, 0.97, -7, 0.0004, -0.0002, 1]
    let moved = Self.mapped(Self.points, by: h)
    let rms = try #require(residual(Self.points, moved))
    #expect(rms < 1e-3, "\(rms)")
  }

  @Test("points off the plane leave a residual of about their own displacement")
  func offPlane() throws {
    let h = [0.98, 0.02, 5, -0.01, 1.01, 3, 0.0001, 0, 1]
    var moved = Self.mapped(Self.points, by: h)
    // The nose (two points) sticks out: it moves 6 px more than the plane.
    moved[10] += 6
    moved[12] += 6
    let rms = try #require(residual(Self.points, moved))
    #expect(rms > 1 && rms < 6, "\(rms)")
  }

  @Test("fewer than five points, or points that coincide, give no fit")
  func degenerate() {
    let four = Array(Self.points.prefix(8))
    #expect(residual(four, four) == nil)
    let same = [Double](repeating: 5, count: 12)
    #expect(residual(same, same) == nil)
  }
}
