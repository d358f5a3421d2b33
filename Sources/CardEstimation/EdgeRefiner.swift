import CardGeometry
import Foundation
import Imaging

/// Fits the four sides of a card precisely at full resolution: along each
/// side of an approximate quadrilateral it reads the image across the side
/// at evenly spaced points (leaving out the rounded corners), takes the
/// strongest step near the expected place with sub-pixel precision, fits a
/// line to those points with outliers removed, and intersects the lines.
/// It also measures how wide each step is, which is how blurred the card is.
final class EdgeRefiner {
  struct Result {
    /// Clockwise, like the quadrilateral given.
    var corners: [Point2]
    /// Per side, the share of sample points that lie on the fitted line.
    var support: [Double]
    /// Median width (standard deviation, pixels) of the steps on each side.
    var spread: [Double]
    /// Median step height (levels) per side.
    var contrast: [Double]
  }

  static let samplesPerSide = 32
  /// Steps kept per sample point: the true edge is not always the strongest
  /// (glare, a printed line near the edge, clutter behind the card).
  static let stepsPerSample = 2
  private static let maximumReach = 64
  private var xs = [Double](repeating: 0, count: samplesPerSide * stepsPerSample)
  private var ys = [Double](repeating: 0, count: samplesPerSide * stepsPerSample)
  private var strengths = [Double](repeating: 0, count: samplesPerSide * stepsPerSample)
  private var mask = [Bool](repeating: false, count: samplesPerSide * stepsPerSample)
  private var spreads = [Double](repeating: 0, count: samplesPerSide * stepsPerSample)
  private var steps = [Double](repeating: 0, count: samplesPerSide * stepsPerSample)
  private var profile = [Double](repeating: 0, count: 2 * maximumReach + 8)
  private var scores = [Double](repeating: 0, count: 2 * maximumReach + 8)

  /// Refines `quad` (clockwise, pixels of `gray`), looking up to `reach`
  /// pixels either side of each edge. Nil when a side has too few edge points.
  func refine(_ gray: ImageBuffer, quad: [Point2], reach: Double) -> Result? {
    let reach = max(2, min(Double(Self.maximumReach), reach))
    let center = Point2(
      quad.reduce(0) { $0 + $1.x } / 4, quad.reduce(0) { $0 + $1.y } / 4)
    var lines: [Line2] = []
    var support: [Double] = []
    var spread: [Double] = []
    var contrast: [Double] = []
    for side in 0..<4 {
      let a = quad[side]
      let b = quad[(side + 1) % 4]
      guard let fitted = refineSide(gray, a, b, center: center, reach: reach) else { return nil }
      lines.append(fitted.line)
      support.append(fitted.support)
      spread.append(fitted.spread)
      contrast.append(fitted.contrast)
    }
    var corners: [Point2] = []
    for k in 0..<4 {
      guard let corner = lines[(k + 3) % 4].intersection(lines[k]) else { return nil }
      corners.append(corner)
    }
    guard Quad.isConvex(corners) else { return nil }
    return Result(corners: corners, support: support, spread: spread, contrast: contrast)
  }

  private func refineSide(_ gray: ImageBuffer, _ a: Point2, _ b: Point2, center: Point2, reach: Double) -> (
    line: Line2, support: Double, spread: Double, contrast: Double
  )? {
    let length = a.distance(to: b)
    guard length > 4 else { return nil }
    let dx = (b.x - a.x) / length
    let dy = (b.y - a.y) / length
    // The normal pointing out of the quadrilateral.
    var nx = -dy
    var ny = dx
    let middle = Point2((a.x + b.x) / 2, (a.y + b.y) / 2)
    if (middle.x - center.x) * nx + (middle.y - center.y) * ny < 0 {
      nx = -nx
      ny = -ny
    }
    let count = Self.samplesPerSide
    let steps = Int(reach.rounded(.up))
    let width = gray.width
    let height = gray.height
    let pixels = gray.pixels
    // Bilinear luma, or nil outside the image.
    func sample(_ x: Double, _ y: Double) -> Double? {
      guard x >= 0, y >= 0, x <= Double(width - 1), y <= Double(height - 1) else { return nil }
      let ix = min(width - 2, Int(x))
      let iy = min(height - 2, Int(y))
      let fx = x - Double(ix)
      let fy = y - Double(iy)
      let p = pixels + iy * width + ix
      let top = Double(p[0]) * (1 - fx) + Double(p[1]) * fx
      let bottom = Double(p[width]) * (1 - fx) + Double(p[width + 1]) * fx
      return top * (1 - fy) + bottom * fy
    }
    let slots = Self.stepsPerSample
    var found = 0
    for i in 0..<count {
      for slot in 0..<slots { mask[i * slots + slot] = false }
      // Between 10% and 90% of the side: the corners are rounded.
      let s = 0.1 + 0.8 * (Double(i) + 0.5) / Double(count)
      let px = a.x + (b.x - a.x) * s
      let py = a.y + (b.y - a.y) * s
      var complete = true
      for k in 0...(2 * steps + 2) {
        let o = Double(k - steps - 1)
        guard let value = sample(px + nx * o, py + ny * o) else {
          complete = false
          break
        }
        profile[k] = value
      }
      guard complete else { continue }
      // Steps, favouring those near the expected place.
      for k in 1...(2 * steps + 1) {
        let derivative = abs(profile[k + 1] - profile[k - 1]) / 2
        let o = Double(k - steps - 1)
        scores[k] = derivative * (1 - 0.4 * abs(o) / Double(steps + 1))
      }
      for slot in 0..<slots {
        // The strongest local maximum not within 2 px of one already taken.
        var best = -1
        var bestScore = 0.0
        for k in 2...(2 * steps) where scores[k] > bestScore && scores[k] >= scores[k - 1] && scores[k] >= scores[k + 1] {
          var taken = false
          for other in 0..<slot where mask[i * slots + other] {
            let otherOffset = (xs[i * slots + other] - px) * nx + (ys[i * slots + other] - py) * ny
            if abs(Double(k - steps - 1) - otherOffset) < 2.5 { taken = true }
          }
          if taken { continue }
          best = k
          bestScore = scores[k]
        }
        let peak = best > 0 ? abs(profile[best + 1] - profile[best - 1]) / 2 : 0
        guard best > 0, peak >= 3 else { break }
        // Sub-pixel: the vertex of the parabola through the three slopes.
        let left = abs((profile[best] - profile[best - 2]) / 2)
        let right = abs((profile[best + 2] - profile[best]) / 2)
        let denominator = left - 2 * peak + right
        let shift = denominator < 0 ? max(-0.5, min(0.5, 0.5 * (left - right) / denominator)) : 0
        let o = Double(best - steps - 1) + shift
        // The step's height and width: for a blurred step of height A with
        // a Gaussian profile of deviation σ, the peak slope is A / (σ √(2π)).
        let outer = min(3, best, 2 * steps + 2 - best)
        let height = abs(profile[best + outer] - profile[best - outer])
        let index = i * slots + slot
        xs[index] = px + nx * o
        ys[index] = py + ny * o
        strengths[index] = bestScore
        spreads[index] = height / (peak * (2 * Double.pi).squareRoot())
        self.steps[index] = height
        mask[index] = true
      }
      if mask[i * slots] { found += 1 }
    }
    guard found >= count / 4 else { return nil }
    // The line most sample points agree on (pairs of points far apart
    // along the side), then a least-squares fit to its points.
    let total = count * slots
    var bestLine: Line2?
    var bestVotes = 0
    var bestStrength = 0.0
    for i in 0..<count - count / 3 {
      for j in (i + count / 3)..<count {
        for si in 0..<slots where mask[i * slots + si] {
          for sj in 0..<slots where mask[j * slots + sj] {
            let p = Point2(xs[i * slots + si], ys[i * slots + si])
            let q = Point2(xs[j * slots + sj], ys[j * slots + sj])
            let candidate = Line2(through: p, q)
            var votes = 0
            var strength = 0.0
            for k in 0..<count {
              var agrees = false
              for sk in 0..<slots where mask[k * slots + sk] {
                if abs(candidate.distance(Point2(xs[k * slots + sk], ys[k * slots + sk]))) <= 1 {
                  agrees = true
                  strength += strengths[k * slots + sk]
                  break
                }
              }
              if agrees { votes += 1 }
            }
            if votes > bestVotes || (votes == bestVotes && strength > bestStrength) {
              bestVotes = votes
              bestStrength = strength
              bestLine = candidate
            }
          }
        }
      }
    }
    guard var line = bestLine, bestVotes >= count / 4 else { return nil }
    var inliers: [Double] = []
    var heights: [Double] = []
    for pass in 0..<2 {
      // One point per sample: the one nearest the line, if near enough.
      var chosen = [Bool](repeating: false, count: total)
      for i in 0..<count {
        var nearest = -1
        var nearestDistance = pass == 0 ? 1.0 : 0.8
        for si in 0..<slots where mask[i * slots + si] {
          let distance = abs(line.distance(Point2(xs[i * slots + si], ys[i * slots + si])))
          if distance <= nearestDistance {
            nearest = i * slots + si
            nearestDistance = distance
          }
        }
        if nearest >= 0 { chosen[nearest] = true }
      }
      guard let fitted = Line2.fit(xs, ys, count: total, mask: chosen) else { return nil }
      line = fitted
      if pass == 1 {
        inliers.removeAll()
        heights.removeAll()
        for index in 0..<total where chosen[index] {
          inliers.append(spreads[index])
          heights.append(self.steps[index])
        }
      }
    }
    guard inliers.count >= count / 4 else { return nil }
    inliers.sort()
    heights.sort()
    return (line, Double(inliers.count) / Double(count), inliers[inliers.count / 2], heights[heights.count / 2])
  }
}
