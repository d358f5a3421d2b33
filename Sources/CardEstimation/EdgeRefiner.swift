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
  static let stepsPerSample = 3
  private static let maximumReach = 64
  private var xs = [Double](repeating: 0, count: samplesPerSide * stepsPerSample)
  private var ys = [Double](repeating: 0, count: samplesPerSide * stepsPerSample)
  private var strengths = [Double](repeating: 0, count: samplesPerSide * stepsPerSample)
  private var mask = [Bool](repeating: false, count: samplesPerSide * stepsPerSample)
  private var spreads = [Double](repeating: 0, count: samplesPerSide * stepsPerSample)
  private var steps = [Double](repeating: 0, count: samplesPerSide * stepsPerSample)
  /// Extra samples beyond the reach, to measure wide (blurred) steps.
  private static let pad = 8
  private var profile = [Double](repeating: 0, count: 2 * (maximumReach + pad) + 8)
  private var scores = [Double](repeating: 0, count: 2 * (maximumReach + pad) + 8)

  /// Refines `quad` (clockwise, pixels of `gray`), looking up to `reach`
  /// pixels either side of each edge. Each side may have two candidate
  /// lines (the card's edge and a printed or background line beside it);
  /// of the combinations, the one `shape` (the residual of a card with
  /// those corners, nil when none could have them) likes best wins. Nil
  /// when a side has too few edge points.
  func refine(_ gray: ImageBuffer, quad: [Point2], reach: Double, shape: ([Point2]) -> Double?) -> Result? {
    let reach = max(2, min(Double(Self.maximumReach), reach))
    let center = Point2(quad.reduce(0) { $0 + $1.x } / 4, quad.reduce(0) { $0 + $1.y } / 4)
    var sides: [[SideFit]] = []
    for side in 0..<4 {
      let fits = refineSide(gray, quad[side], quad[(side + 1) % 4], center: center, reach: reach)
      guard !fits.isEmpty else { return nil }
      sides.append(fits)
    }
    var best: Result?
    var bestScore = -1.0
    for combination in 0..<16 {
      var chosen: [SideFit] = []
      for side in 0..<4 {
        let pick = (combination >> side) & 1
        guard pick < sides[side].count else { break }
        chosen.append(sides[side][pick])
      }
      guard chosen.count == 4 else { continue }
      var corners: [Point2] = []
      for k in 0..<4 {
        guard let corner = chosen[(k + 3) % 4].line.intersection(chosen[k].line) else { break }
        corners.append(corner)
      }
      guard corners.count == 4, Quad.isConvex(corners), let residual = shape(corners) else { continue }
      let support = chosen.reduce(0) { $0 + $1.support } / 4
      let score = support * exp(-residual / CardDetector.residualScale)
      if score > bestScore {
        bestScore = score
        best = Result(
          corners: corners, support: chosen.map(\.support), spread: chosen.map(\.spread),
          contrast: chosen.map(\.contrast))
      }
    }
    return best
  }

  struct SideFit {
    var line: Line2
    var support: Double
    var spread: Double
    var contrast: Double
  }

  /// Up to two lines for the side a–b, the best supported first.
  private func refineSide(_ gray: ImageBuffer, _ a: Point2, _ b: Point2, center: Point2, reach: Double) -> [SideFit] {
    let length = a.distance(to: b)
    guard length > 4 else { return [] }
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
    let pad = Self.pad
    // Profile index of the expected edge; the profile spans ± (steps + pad).
    let center = steps + pad + 1
    let last = 2 * center
    let width = gray.width
    let height = gray.height
    let pixels = gray.pixels
    // Bilinear luma; outside the image, the nearest pixel inside, so that
    // a card near the frame's border keeps its samples.
    func sample(_ x: Double, _ y: Double) -> Double {
      let x = max(0, min(Double(width - 1), x))
      let y = max(0, min(Double(height - 1), y))
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
      // The expected edge point itself must be inside the image.
      guard px >= 0, py >= 0, px <= Double(width - 1), py <= Double(height - 1) else { continue }
      for k in 0...last {
        let o = Double(k - center)
        profile[k] = sample(px + nx * o, py + ny * o)
      }
      // Steps, favouring those near the expected place.
      for k in (center - steps)...(center + steps) {
        let derivative = abs(profile[k + 1] - profile[k - 1]) / 2
        let o = Double(k - center)
        scores[k] = derivative * (1 - 0.4 * abs(o) / Double(steps + 1))
      }
      for slot in 0..<slots {
        // The strongest local maximum not within 2 px of one already taken.
        var best = -1
        var bestScore = 0.0
        for k in (center - steps + 1)...(center + steps - 1)
        where scores[k] > bestScore && scores[k] >= scores[k - 1] && scores[k] >= scores[k + 1] {
          var taken = false
          for other in 0..<slot where mask[i * slots + other] {
            let otherOffset = (xs[i * slots + other] - px) * nx + (ys[i * slots + other] - py) * ny
            if abs(Double(k - center) - otherOffset) < 2.5 { taken = true }
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
        let o = Double(best - center) + shift
        // The step's height and width: for a blurred step of height A with
        // a Gaussian profile of deviation σ, the peak slope is A / (σ √(2π)).
        var outer = min(3, best, last - best)
        var height = abs(profile[best + outer] - profile[best - outer])
        var spread = height / (peak * (2 * Double.pi).squareRoot())
        if spread > 1 {
          // A wide step: measure its height further out.
          outer = min(Int((2.5 * spread).rounded(.up)) + 1, best, last - best)
          height = abs(profile[best + outer] - profile[best - outer])
          spread = height / (peak * (2 * Double.pi).squareRoot())
        }
        let index = i * slots + slot
        xs[index] = px + nx * o
        ys[index] = py + ny * o
        strengths[index] = bestScore
        spreads[index] = spread
        self.steps[index] = height
        mask[index] = true
      }
      if mask[i * slots] { found += 1 }
    }
    guard found >= count / 4 else { return [] }
    // The line most sample points agree on (pairs of points far apart
    // along the side), then a least-squares fit to its points; then the
    // same again without those points, for a second choice.
    var results: [SideFit] = []
    var available = mask
    for _ in 0..<2 {
      guard let fit = consensusLine(count: count, available: available) else { break }
      results.append(fit)
      for index in 0..<count * slots where available[index] {
        if abs(fit.line.distance(Point2(xs[index], ys[index]))) <= 2 { available[index] = false }
      }
    }
    return results
  }

  private func consensusLine(count: Int, available: [Bool]) -> SideFit? {
    let slots = Self.stepsPerSample
    let total = count * slots
    var bestLine: Line2?
    var bestVotes = 0
    var bestStrength = 0.0
    for i in 0..<count - count / 3 {
      for j in (i + count / 3)..<count {
        for si in 0..<slots where available[i * slots + si] {
          for sj in 0..<slots where available[j * slots + sj] {
            let p = Point2(xs[i * slots + si], ys[i * slots + si])
            let q = Point2(xs[j * slots + sj], ys[j * slots + sj])
            let candidate = Line2(through: p, q)
            var votes = 0
            var strength = 0.0
            for k in 0..<count {
              for sk in 0..<slots where available[k * slots + sk] {
                if abs(candidate.distance(Point2(xs[k * slots + sk], ys[k * slots + sk]))) <= 1 {
                  votes += 1
                  strength += strengths[k * slots + sk]
                  break
                }
              }
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
        for si in 0..<slots where available[i * slots + si] {
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
    return SideFit(
      line: line, support: Double(inliers.count) / Double(count), spread: inliers[inliers.count / 2],
      contrast: heights[heights.count / 2])
  }

}
