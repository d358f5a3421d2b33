/// How well one homography maps a set of points of one frame onto the
/// same points of another: a flat picture's points, moved or turned in
/// front of the camera, map by one homography; the points of a real face,
/// at different depths, do not once the head turns.
///
/// The homography is the normalised direct linear transform (Hartley and
/// Zisserman, algorithm 4.2): both point sets moved to their centroid and
/// scaled to a mean distance of √2, the 2n × 9 system solved by the
/// eigenvector of AᵀA with the smallest eigenvalue (Jacobi rotations on the
/// 9 × 9 matrix). Storage is fixed at creation: fitting allocates nothing.
public struct PlanarFit: Sendable {
  /// The most points a fit takes.
  public let capacity: Int
  private var from: [Double]
  private var to: [Double]
  private var normal = [Double](repeating: 0, count: 81)
  private var vectors = [Double](repeating: 0, count: 81)
  /// The last homography fitted, row-major, mapping `from` to `to` in pixels.
  public private(set) var homography = [Double](repeating: 0, count: 9)

  public init(capacity: Int) {
    self.capacity = capacity
    from = [Double](repeating: 0, count: capacity * 2)
    to = [Double](repeating: 0, count: capacity * 2)
  }

  /// The root mean square distance, in pixels, between `to` and the points
  /// of `from` mapped by the homography that fits them best; nil for fewer
  /// than 5 points (4 fit any homography exactly) or a degenerate set.
  /// Points are x, y pairs, `count` of each.
  public mutating func residual(
    from source: UnsafeBufferPointer<Double>, to target: UnsafeBufferPointer<Double>, count: Int
  )
    -> Double?
  {
    guard count >= 5, count <= capacity, source.count >= count * 2, target.count >= count * 2 else { return nil }
    guard let a = Self.normalise(source, count: count, into: &from),
      let b = Self.normalise(target, count: count, into: &to)
    else { return nil }
    fillNormalMatrix(count: count)
    let hn = smallestEigenvector()
    // Undo the normalisation: H = Tb⁻¹ · Hn · Ta.
    // Ta = [[sa, 0, -sa·ax], [0, sa, -sa·ay], [0, 0, 1]]; Tb⁻¹ = [[1/sb, 0, bx], [0, 1/sb, by], [0, 0, 1]].
    var m = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    // Hn · Ta
    m.0 = hn.0 * a.scale
    m.1 = hn.1 * a.scale
    m.2 = -hn.0 * a.scale * a.x - hn.1 * a.scale * a.y + hn.2
    m.3 = hn.3 * a.scale
    m.4 = hn.4 * a.scale
    m.5 = -hn.3 * a.scale * a.x - hn.4 * a.scale * a.y + hn.5
    m.6 = hn.6 * a.scale
    m.7 = hn.7 * a.scale
    m.8 = -hn.6 * a.scale * a.x - hn.7 * a.scale * a.y + hn.8
    // Tb⁻¹ · (Hn · Ta)
    let inverse = 1 / b.scale
    homography[0] = m.0 * inverse + b.x * m.6
    homography[1] = m.1 * inverse + b.x * m.7
    homography[2] = m.2 * inverse + b.x * m.8
    homography[3] = m.3 * inverse + b.y * m.6
    homography[4] = m.4 * inverse + b.y * m.7
    homography[5] = m.5 * inverse + b.y * m.8
    homography[6] = m.6
    homography[7] = m.7
    homography[8] = m.8
    var sum = 0.0
    for index in 0..<count {
      let x = source[index * 2]
      let y = source[index * 2 + 1]
      let w = homography[6] * x + homography[7] * y + homography[8]
      guard abs(w) > 1e-12 else { return nil }
      let dx = (homography[0] * x + homography[1] * y + homography[2]) / w - target[index * 2]
      let dy = (homography[3] * x + homography[4] * y + homography[5]) / w - target[index * 2 + 1]
      sum += dx * dx + dy * dy
    }
    let rms = (sum / Double(count)).squareRoot()
    return rms.isFinite ? rms : nil
  }

  /// Moves the points to their centroid and scales them to a mean distance
  /// of √2; returns the centroid and the scale, nil when all points coincide.
  private static func normalise(_ points: UnsafeBufferPointer<Double>, count: Int, into out: inout [Double])
    -> (x: Double, y: Double, scale: Double)?
  {
    var cx = 0.0
    var cy = 0.0
    for index in 0..<count {
      cx += points[index * 2]
      cy += points[index * 2 + 1]
    }
    cx /= Double(count)
    cy /= Double(count)
    var distance = 0.0
    for index in 0..<count {
      let dx = points[index * 2] - cx
      let dy = points[index * 2 + 1] - cy
      distance += (dx * dx + dy * dy).squareRoot()
    }
    distance /= Double(count)
    guard distance > 1e-9, distance.isFinite else { return nil }
    let scale = 2.0.squareRoot() / distance
    for index in 0..<count {
      out[index * 2] = (points[index * 2] - cx) * scale
      out[index * 2 + 1] = (points[index * 2 + 1] - cy) * scale
    }
    return (cx, cy, scale)
  }

  /// AᵀA of the DLT system: for each pair (x, y) → (u, v) the rows
  /// [-x, -y, -1, 0, 0, 0, ux, uy, u] and [0, 0, 0, -x, -y, -1, vx, vy, v].
  private mutating func fillNormalMatrix(count: Int) {
    for index in 0..<81 { normal[index] = 0 }
    for index in 0..<count {
      let x = from[index * 2]
      let y = from[index * 2 + 1]
      let u = to[index * 2]
      let v = to[index * 2 + 1]
      let first = (-x, -y, -1.0, 0.0, 0.0, 0.0, u * x, u * y, u)
      let second = (0.0, 0.0, 0.0, -x, -y, -1.0, v * x, v * y, v)
      accumulate(first)
      accumulate(second)
    }
  }

  private mutating func accumulate(
    _ row: (Double, Double, Double, Double, Double, Double, Double, Double, Double)
  ) {
    withUnsafeBytes(of: row) { raw in
      let values = raw.bindMemory(to: Double.self)
      for i in 0..<9 where values[i] != 0 {
        for j in i..<9 { normal[i * 9 + j] += values[i] * values[j] }
      }
    }
  }

  /// The unit eigenvector of the smallest eigenvalue of `normal` (upper
  /// triangle filled), by cyclic Jacobi rotations.
  private mutating func smallestEigenvector()
    -> (Double, Double, Double, Double, Double, Double, Double, Double, Double)
  {
    for i in 0..<9 {
      for j in 0..<i { normal[i * 9 + j] = normal[j * 9 + i] }
    }
    for index in 0..<81 { vectors[index] = index % 10 == 0 ? 1 : 0 }
    for _ in 0..<60 {
      var off = 0.0
      for i in 0..<9 {
        for j in (i + 1)..<9 { off += normal[i * 9 + j] * normal[i * 9 + j] }
      }
      if off < 1e-30 { break }
      for p in 0..<8 {
        for q in (p + 1)..<9 {
          let apq = normal[p * 9 + q]
          guard abs(apq) > 1e-300 else { continue }
          let theta = (normal[q * 9 + q] - normal[p * 9 + p]) / (2 * apq)
          let t = (theta >= 0 ? 1 : -1) / (abs(theta) + (theta * theta + 1).squareRoot())
          let c = 1 / (t * t + 1).squareRoot()
          let s = t * c
          for k in 0..<9 {
            let akp = normal[k * 9 + p]
            let akq = normal[k * 9 + q]
            normal[k * 9 + p] = c * akp - s * akq
            normal[k * 9 + q] = s * akp + c * akq
          }
          for k in 0..<9 {
            let apk = normal[p * 9 + k]
            let aqk = normal[q * 9 + k]
            normal[p * 9 + k] = c * apk - s * aqk
            normal[q * 9 + k] = s * apk + c * aqk
          }
          for k in 0..<9 {
            let vkp = vectors[k * 9 + p]
            let vkq = vectors[k * 9 + q]
            vectors[k * 9 + p] = c * vkp - s * vkq
            vectors[k * 9 + q] = s * vkp + c * vkq
          }
        }
      }
    }
    var smallest = 0
    for i in 1..<9 where normal[i * 10] < normal[smallest * 10] { smallest = i }
    let v = vectors
    let s = smallest
    return (v[s], v[9 + s], v[18 + s], v[27 + s], v[36 + s], v[45 + s], v[54 + s], v[63 + s], v[72 + s])
  }
}
