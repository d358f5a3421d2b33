import Foundation

/// A point or vector in a plane (pixels or card millimetres).
public struct Point2: Sendable, Equatable, CustomStringConvertible {
  public var x: Double
  public var y: Double

  public init(_ x: Double, _ y: Double) {
    self.x = x
    self.y = y
  }

  public static func + (a: Point2, b: Point2) -> Point2 { Point2(a.x + b.x, a.y + b.y) }
  public static func - (a: Point2, b: Point2) -> Point2 { Point2(a.x - b.x, a.y - b.y) }
  public static func * (a: Point2, s: Double) -> Point2 { Point2(a.x * s, a.y * s) }
  public var length: Double { (x * x + y * y).squareRoot() }
  public func distance(to other: Point2) -> Double { (self - other).length }
  public var description: String { String(format: "(%.2f, %.2f)", x, y) }
}

/// A vector in space.
public struct Vector3: Sendable, Equatable {
  public var x: Double
  public var y: Double
  public var z: Double

  public init(_ x: Double, _ y: Double, _ z: Double) {
    self.x = x
    self.y = y
    self.z = z
  }

  public static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x + b.x, a.y + b.y, a.z + b.z) }
  public static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x - b.x, a.y - b.y, a.z - b.z) }
  public static func * (a: Vector3, s: Double) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }
  public func dot(_ b: Vector3) -> Double { x * b.x + y * b.y + z * b.z }
  public func cross(_ b: Vector3) -> Vector3 { Vector3(y * b.z - z * b.y, z * b.x - x * b.z, x * b.y - y * b.x) }
  public var length: Double { dot(self).squareRoot() }
  public var normalized: Vector3 { self * (1 / max(length, 1e-300)) }
}

/// A 3 × 3 matrix, row-major.
public struct Matrix3: Sendable, Equatable {
  public var m: [Double]

  public init(_ m: [Double]) {
    precondition(m.count == 9)
    self.m = m
  }

  public static let identity = Matrix3([1, 0, 0, 0, 1, 0, 0, 0, 1])

  public init(columns a: Vector3, _ b: Vector3, _ c: Vector3) {
    m = [a.x, b.x, c.x, a.y, b.y, c.y, a.z, b.z, c.z]
  }

  public subscript(row: Int, column: Int) -> Double {
    get { m[row * 3 + column] }
    set { m[row * 3 + column] = newValue }
  }

  public func column(_ index: Int) -> Vector3 { Vector3(m[index], m[3 + index], m[6 + index]) }

  public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
    var result = [Double](repeating: 0, count: 9)
    for row in 0..<3 {
      for column in 0..<3 {
        result[row * 3 + column] =
          a.m[row * 3] * b.m[column] + a.m[row * 3 + 1] * b.m[3 + column] + a.m[row * 3 + 2] * b.m[6 + column]
      }
    }
    return Matrix3(result)
  }

  public static func * (a: Matrix3, v: Vector3) -> Vector3 {
    Vector3(
      a.m[0] * v.x + a.m[1] * v.y + a.m[2] * v.z, a.m[3] * v.x + a.m[4] * v.y + a.m[5] * v.z,
      a.m[6] * v.x + a.m[7] * v.y + a.m[8] * v.z)
  }

  public var transposed: Matrix3 { Matrix3([m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]]) }

  public var determinant: Double {
    m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6])
  }

  /// The inverse; nil when the matrix is singular.
  public var inverse: Matrix3? {
    let det = determinant
    guard abs(det) > 1e-300, det.isFinite else { return nil }
    let inv = 1 / det
    return Matrix3([
      (m[4] * m[8] - m[5] * m[7]) * inv, (m[2] * m[7] - m[1] * m[8]) * inv, (m[1] * m[5] - m[2] * m[4]) * inv,
      (m[5] * m[6] - m[3] * m[8]) * inv, (m[0] * m[8] - m[2] * m[6]) * inv, (m[2] * m[3] - m[0] * m[5]) * inv,
      (m[3] * m[7] - m[4] * m[6]) * inv, (m[1] * m[6] - m[0] * m[7]) * inv, (m[0] * m[4] - m[1] * m[3]) * inv,
    ])
  }

  /// The angle of the rotation `self` (a rotation matrix), in radians.
  public var rotationAngle: Double {
    acos(max(-1, min(1, (m[0] + m[4] + m[8] - 1) / 2)))
  }
}

/// A plane-to-plane projective map: (x, y) ↦ (h·(x, y, 1)) dehomogenised.
public struct Homography: Sendable, Equatable {
  public var matrix: Matrix3

  public init(_ matrix: Matrix3) { self.matrix = matrix }

  public func apply(_ p: Point2) -> Point2 {
    let m = matrix.m
    let w = m[6] * p.x + m[7] * p.y + m[8]
    return Point2((m[0] * p.x + m[1] * p.y + m[2]) / w, (m[3] * p.x + m[4] * p.y + m[5]) / w)
  }

  public var inverse: Homography? { matrix.inverse.map(Homography.init) }

  /// The homography that maps the four `from` points onto the four `to`
  /// points (no three of either collinear); nil for a degenerate set.
  /// Solves the 8 × 8 linear system with partial pivoting.
  public init?(from: [Point2], to: [Point2]) {
    guard from.count == 4, to.count == 4 else { return nil }
    var a = [Double](repeating: 0, count: 8 * 9)
    for i in 0..<4 {
      let (x, y, u, v) = (from[i].x, from[i].y, to[i].x, to[i].y)
      let r1 = 2 * i * 9
      let r2 = (2 * i + 1) * 9
      a[r1 + 0] = x
      a[r1 + 1] = y
      a[r1 + 2] = 1
      a[r1 + 6] = -u * x
      a[r1 + 7] = -u * y
      a[r1 + 8] = u
      a[r2 + 3] = x
      a[r2 + 4] = y
      a[r2 + 5] = 1
      a[r2 + 6] = -v * x
      a[r2 + 7] = -v * y
      a[r2 + 8] = v
    }
    guard let h = LinearSystem.solve(&a, size: 8) else { return nil }
    self.matrix = Matrix3([h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], 1])
  }
}

/// Small dense linear systems (a homography's eight unknowns, an image
/// alignment's ten).
public enum LinearSystem {
  /// Solves the `size` × `size` system whose augmented matrix — `size` rows
  /// of `size` + 1 values, the coefficients then the right-hand side — is
  /// `augmented` (overwritten), by Gauss–Jordan elimination with partial
  /// pivoting; nil when it is singular.
  public static func solve(_ augmented: inout [Double], size n: Int) -> [Double]? {
    let stride = n + 1
    guard augmented.count >= n * stride else { return nil }
    for column in 0..<n {
      var pivot = column
      for row in column + 1..<n where abs(augmented[row * stride + column]) > abs(augmented[pivot * stride + column]) {
        pivot = row
      }
      guard abs(augmented[pivot * stride + column]) > 1e-12 else { return nil }
      if pivot != column {
        for k in 0..<stride { augmented.swapAt(pivot * stride + k, column * stride + k) }
      }
      let inverse = 1 / augmented[column * stride + column]
      for row in 0..<n where row != column {
        let factor = augmented[row * stride + column] * inverse
        if factor == 0 { continue }
        for k in column..<stride { augmented[row * stride + k] -= factor * augmented[column * stride + k] }
      }
    }
    var solution = [Double](repeating: 0, count: n)
    for row in 0..<n { solution[row] = augmented[row * stride + n] / augmented[row * stride + row] }
    return solution.allSatisfy(\.isFinite) ? solution : nil
  }
}
