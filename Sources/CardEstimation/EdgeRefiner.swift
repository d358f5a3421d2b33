import CardGeometry
import Foundation
import Imaging

// About 600 lines, kept whole on purpose: one pass over four sides whose
// sampling, step finding, line fitting and blur measure share the scratch
// buffers and the side geometry; split across files, every helper would
// have to widen its access to them.

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
  /// How far a completed side is looked for, as a share of the sides
  /// beside it.
  static let uncertainReach = 0.08
  /// Steps kept per sample point: the true edge is not always the strongest
  /// (glare, a printed line near the edge, clutter behind the card), and
  /// near a card's top edge there are often four: the edge, the two sides
  /// of the labels in the header band and the band's own lower edge.
  static let stepsPerSample = 5
  private static let maximumReach = 64
  // Scratch memory, allocated once: per sample point and step slot, and
  // per profile position.
  private static let slotCount = samplesPerSide * stepsPerSample
  private static let profileLength = 2 * (maximumReach + pad) + 8
  private let xs = scratch(Double.self, slotCount)
  private let ys = scratch(Double.self, slotCount)
  private let strengths = scratch(Double.self, slotCount)
  private let mask = scratch(Bool.self, slotCount)
  private let available = scratch(Bool.self, slotCount)
  private let chosen = scratch(Bool.self, slotCount)
  private let spreads = scratch(Double.self, slotCount)
  private let steps = scratch(Double.self, slotCount)
  /// Extra samples beyond the reach, to measure wide (blurred) steps.
  private static let pad = 8
  private let profile = scratch(Double.self, profileLength)
  private let profileG = scratch(Double.self, profileLength)
  private let profileB = scratch(Double.self, profileLength)
  private let scores = scratch(Double.self, profileLength)
  private let derivatives = scratch(Double.self, profileLength)

  private static func scratch(_: Double.Type, _ count: Int) -> UnsafeMutablePointer<Double> {
    let pointer = UnsafeMutablePointer<Double>.allocate(capacity: count)
    pointer.initialize(repeating: 0, count: count)
    return pointer
  }

  private static func scratch(_: Bool.Type, _ count: Int) -> UnsafeMutablePointer<Bool> {
    let pointer = UnsafeMutablePointer<Bool>.allocate(capacity: count)
    pointer.initialize(repeating: false, count: count)
    return pointer
  }

  deinit {
    for pointer in [xs, ys, strengths, spreads, steps, profile, profileG, profileB, scores, derivatives] {
      pointer.deallocate()
    }
    for pointer in [mask, available, chosen] { pointer.deallocate() }
  }

  /// Refines `quad` (clockwise, pixels of `gray`), looking up to `reach`
  /// pixels either side of each edge. Each side may have two candidate
  /// lines (the card's edge and a printed or background line beside it);
  /// of the combinations, the one `shape` (the residual of a card with
  /// those corners, nil when none could have them) likes best wins. Nil
  /// when a side has too few edge points. With `color` (rgb8, the size of
  /// `gray`) the sides are read in colour. `uncertainSide`, a side of
  /// `quad` completed from the other three, is looked for further off.
  /// With `camera`, one side with no line is completed from the other three
  /// (`CardCompletion`).
  func refine(
    _ gray: ImageBuffer, color: ImageBuffer? = nil, camera: PinholeCamera? = nil, quad: [Point2], reach: Double,
    uncertainSide: Int? = nil, shape: ([Point2]) -> Double?
  ) -> Result? {
    let color = color.flatMap { $0.format == .rgb8 && $0.width == gray.width && $0.height == gray.height ? $0 : nil }
    let reach = max(2, min(Double(Self.maximumReach), reach))
    let center = Point2(quad.reduce(0) { $0 + $1.x } / 4, quad.reduce(0) { $0 + $1.y } / 4)
    var sides: [[SideFit]] = []
    var missingCount = 0
    for side in 0..<4 {
      // In colour when there is colour: a step of colour alone (a blue
      // header band against a wooden table) is the card's edge as much as a
      // step of brightness, and luma alone may show only a line printed
      // inside it.
      // A side completed from the other three is only as good as their
      // directions: it is looked for further off, in proportion to the card.
      var sideReach = reach
      if side == uncertainSide {
        let neighbour = max(
          quad[(side + 1) % 4].distance(to: quad[(side + 2) % 4]), quad[(side + 3) % 4].distance(to: quad[side]))
        sideReach = max(reach, min(Double(Self.maximumReach), Self.uncertainReach * neighbour))
      }
      let fits = refineSide(color ?? gray, quad[side], quad[(side + 1) % 4], center: center, reach: sideReach)
      sides.append(fits.filter { $0.support >= Self.weakSide })
      if sides[side].isEmpty { missingCount += 1 }
      // Two sides without a line: no card, whatever the others show.
      if missingCount > 1 { return nil }
    }
    let missing = (0..<4).filter { sides[$0].isEmpty }
    if !missing.isEmpty {
      guard missing.count == 1, let camera else { return nil }
      return complete(quad, sides: sides, missing: missing[0], camera: camera, shape: shape)
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

  /// Whether the card's region ends along the side a–b of the card with
  /// centre `center` even where no sharp step can be found there (a step
  /// smeared by motion, say): at evenly spaced points along the side
  /// (between 10% and 90%), the mean colour in a band inside (from `gap`
  /// to `gap + band` pixels from the side) against one outside. Gives the
  /// share of points where the two differ by at least `level` (colour
  /// distance over √3, luma levels for a gray image), and how consistent
  /// the difference is along the side (the length of the mean difference
  /// over the mean length: 1 when it is the same everywhere).
  func regionStep(
    _ image: ImageBuffer, _ a: Point2, _ b: Point2, center: Point2, gap: Double, band: Double, level: Double
  ) -> (share: Double, consistency: Double) {
    guard a.distance(to: b) > 4 else { return (0, 0) }
    let (_, normal) = Self.frame(of: a, b, center: center)
    let nx = normal.x
    let ny = normal.y
    let channels = image.format == .rgb8 ? 3 : 1
    let width = image.width
    let height = image.height
    let pixels = image.pixels
    // The mean of each channel over a band across the side at `p`, from
    // `from` to `to` pixels along the outward normal (nearest pixels).
    func mean(_ p: Point2, _ from: Double, _ to: Double) -> (Double, Double, Double)? {
      var sum = (0.0, 0.0, 0.0)
      var n = 0.0
      var o = from
      while o <= to {
        let x = Int((p.x + nx * o).rounded())
        let y = Int((p.y + ny * o).rounded())
        if x >= 0, y >= 0, x < width, y < height {
          let q = pixels + (y * width + x) * channels
          if channels == 3 {
            sum = (sum.0 + Double(q[0]), sum.1 + Double(q[1]), sum.2 + Double(q[2]))
          } else {
            sum = (sum.0 + Double(q[0]), sum.1 + Double(q[0]), sum.2 + Double(q[0]))
          }
          n += 1
        }
        o += 1
      }
      guard n >= 3 else { return nil }
      return (sum.0 / n, sum.1 / n, sum.2 / n)
    }
    let count = Self.samplesPerSide
    var hits = 0
    var total = 0
    var meanDifference = (0.0, 0.0, 0.0)
    var meanLength = 0.0
    for i in 0..<count {
      let s = 0.1 + 0.8 * (Double(i) + 0.5) / Double(count)
      let p = a + (b - a) * s
      guard let inside = mean(p, -gap - band, -gap), let outside = mean(p, gap, gap + band) else { continue }
      let d = (inside.0 - outside.0, inside.1 - outside.1, inside.2 - outside.2)
      let distance = ((d.0 * d.0 + d.1 * d.1 + d.2 * d.2) / 3).squareRoot()
      total += 1
      if distance >= level { hits += 1 }
      meanDifference = (meanDifference.0 + d.0, meanDifference.1 + d.1, meanDifference.2 + d.2)
      meanLength += distance
    }
    guard total >= count / 2, meanLength > 0 else { return (0, 0) }
    let d = meanDifference
    let consistency = ((d.0 * d.0 + d.1 * d.1 + d.2 * d.2) / 3).squareRoot() / meanLength
    return (Double(hits) / Double(count), consistency)
  }

  /// Whether a faint step runs along a–b, a side placed by the others
  /// where the card and what lies behind it are nearly the same colour (a
  /// white card on white paper): at evenly spaced points along
  /// the side (between 10% and 90%), the strongest step across it within
  /// `reach` pixels, read in profiles averaged over a few pixels along the
  /// side. Gives the share of points whose step is at least `level` (colour
  /// distance over √3, luma levels for a gray image), well above the
  /// profile's mean slope, and within `tolerance` pixels of the steps'
  /// median offset; and that offset (pixels outward). The side being known to a few
  /// pixels, steps that line up there are the card's edge, not noise.
  func faintStep(
    _ image: ImageBuffer, _ a: Point2, _ b: Point2, center: Point2, reach: Int, level: Double, tolerance: Double
  ) -> (share: Double, offset: Double) {
    let reach = max(2, min(Self.maximumReach, reach))
    guard a.distance(to: b) > 8 else { return (0, 0) }
    let (along, normal) = Self.frame(of: a, b, center: center)
    let (dx, dy, nx, ny) = (along.x, along.y, normal.x, normal.y)
    let channels = image.format == .rgb8 ? 3 : 1
    let width = image.width
    let height = image.height
    let stride = width * channels
    let pixels = image.pixels
    let count = Self.samplesPerSide
    let last = 2 * reach + 2
    var found = 0
    for i in 0..<count {
      let s = 0.1 + 0.8 * (Double(i) + 0.5) / Double(count)
      let p = a + (b - a) * s
      guard p.x >= 0, p.y >= 0, p.x <= Double(width - 1), p.y <= Double(height - 1) else { continue }
      for k in 0...last {
        let o = Double(k - reach - 1)
        var sum = (0.0, 0.0, 0.0)
        // Five points along the side, two pixels apart: noise averages out,
        // a straight edge does not.
        for along in -2...2 {
          let x = max(0, min(Double(width - 1), p.x + nx * o + dx * Double(2 * along)))
          let y = max(0, min(Double(height - 1), p.y + ny * o + dy * Double(2 * along)))
          let ix = min(width - 2, Int(x))
          let iy = min(height - 2, Int(y))
          let fx = x - Double(ix)
          let fy = y - Double(iy)
          let q = pixels + iy * stride + ix * channels
          func value(_ c: Int) -> Double {
            let top = Double(q[c]) * (1 - fx) + Double(q[channels + c]) * fx
            let bottom = Double(q[stride + c]) * (1 - fx) + Double(q[stride + channels + c]) * fx
            return top * (1 - fy) + bottom * fy
          }
          if channels == 3 {
            sum = (sum.0 + value(0), sum.1 + value(1), sum.2 + value(2))
          } else {
            let v = value(0)
            sum = (sum.0 + v, sum.1 + v, sum.2 + v)
          }
        }
        profile[k] = sum.0 / 5
        profileG[k] = sum.1 / 5
        profileB[k] = sum.2 / 5
      }
      var best = -1
      var peak = 0.0
      var total = 0.0
      for k in 1..<last {
        let r = profile[k + 1] - profile[k - 1]
        let g = profileG[k + 1] - profileG[k - 1]
        let b = profileB[k + 1] - profileB[k - 1]
        let slope = ((r * r + g * g + b * b) / 3).squareRoot() / 2
        total += slope
        if slope > peak {
          peak = slope
          best = k
        }
      }
      // Well above the other slopes: the mean includes the step itself.
      guard best > 0, peak >= level, peak >= 1.5 * total / Double(last - 1) else { continue }
      // `xs` is the sample points' scratch of `refineSide`, free here.
      xs[found] = Double(best - reach - 1)
      found += 1
    }
    guard found >= count / 2 else { return (0, 0) }
    var offsets = UnsafeMutableBufferPointer(start: xs, count: found)
    offsets.sort()
    let median = offsets[found / 2]
    var agreeing = 0
    for offset in offsets where abs(offset - median) <= tolerance { agreeing += 1 }
    return (Double(agreeing) / Double(count), median)
  }

  /// A side line with less support than this is no line.
  static let weakSide = 0.3

  /// The best card with three sides from `sides` and the fourth, `missing`,
  /// completed from them, the one nearest `quad`'s side.
  private func complete(
    _ quad: [Point2], sides: [[SideFit]], missing: Int, camera: PinholeCamera, shape: ([Point2]) -> Double?
  ) -> Result? {
    let opposite = (missing + 2) % 4
    let a1 = (missing + 3) % 4
    let a2 = (missing + 1) % 4
    // Whether `opposite` is one of the long sides, as in the quadrilateral given.
    let lengthB = quad[opposite].distance(to: quad[(opposite + 1) % 4])
    let lengthA = quad[a2].distance(to: quad[(a2 + 1) % 4])
    let expected = Line2(through: quad[missing], quad[(missing + 1) % 4])
    let middle = (quad[missing] + quad[(missing + 1) % 4]) * 0.5
    var best: Result?
    var bestScore = -1.0
    for combination in 0..<8 {
      let pb = combination & 1
      let p1 = (combination >> 1) & 1
      let p2 = (combination >> 2) & 1
      guard pb < sides[opposite].count, p1 < sides[a1].count, p2 < sides[a2].count else { continue }
      let b = sides[opposite][pb]
      let first = sides[a1][p1]
      let second = sides[a2][p2]
      // Corners of the completion: b ∩ (line leading into b) first.
      for sign in [1.0, -1.0] {
        guard
          let c = CardCompletion.corners(
            a1: second.line, a2: first.line, b: b.line, camera: camera, bIsWidth: lengthB >= lengthA, sign: sign)
        else { continue }
        // c: [second ∩ b, b ∩ first, on first, on second] → quad order.
        var corners = [Point2](repeating: Point2(0, 0), count: 4)
        corners[opposite] = c[0]
        corners[(opposite + 1) % 4] = c[1]
        corners[missing] = c[2]
        corners[(missing + 1) % 4] = c[3]
        let line = Line2(through: c[2], c[3])
        let distance = abs(line.distance(middle))
        guard distance < 0.25 * lengthA + 4, Quad.isConvex(corners), let residual = shape(corners) else { continue }
        _ = expected
        let support = (b.support + first.support + second.support) / 4
        let score = support * exp(-residual / CardDetector.residualScale)
        if score > bestScore {
          bestScore = score
          var fits = [SideFit](repeating: b, count: 4)
          fits[opposite] = b
          fits[a1] = first
          fits[a2] = second
          let spread = [b.spread, first.spread, second.spread].sorted()[1]
          fits[missing] = SideFit(line: line, support: 0, spread: spread, contrast: 0)
          best = Result(
            corners: corners, support: fits.map(\.support), spread: fits.map(\.spread),
            contrast: fits.map(\.contrast))
        }
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

  /// The unit vector along the side a–b and the unit normal pointing out of
  /// the quadrilateral with centre `center`.
  @inline(__always)
  private static func frame(of a: Point2, _ b: Point2, center: Point2) -> (along: Point2, normal: Point2) {
    let length = a.distance(to: b)
    let along = Point2((b.x - a.x) / length, (b.y - a.y) / length)
    var normal = Point2(-along.y, along.x)
    let middle = (a + b) * 0.5
    if (middle.x - center.x) * normal.x + (middle.y - center.y) * normal.y < 0 { normal = normal * -1 }
    return (along, normal)
  }

  /// Up to two lines for the side a–b, the best supported first.
  private func refineSide(_ gray: ImageBuffer, _ a: Point2, _ b: Point2, center: Point2, reach: Double) -> [SideFit] {
    guard a.distance(to: b) > 4 else { return [] }
    let (_, normal) = Self.frame(of: a, b, center: center)
    let nx = normal.x
    let ny = normal.y
    let count = Self.samplesPerSide
    let steps = Int(reach.rounded(.up))
    let pad = Self.pad
    // Profile index of the expected edge; the profile spans ± (steps + pad).
    let center = steps + pad + 1
    let last = 2 * center
    let width = gray.width
    let height = gray.height
    let pixels = gray.pixels
    let channels = gray.format == .rgb8 ? 3 : 1
    let stride = width * channels
    // Bilinear samples of each channel into the profiles at `k`; outside
    // the image, the nearest pixel inside, so that a card near the frame's
    // border keeps its samples.
    func sample(_ x: Double, _ y: Double, _ k: Int) {
      let x = max(0, min(Double(width - 1), x))
      let y = max(0, min(Double(height - 1), y))
      let ix = min(width - 2, Int(x))
      let iy = min(height - 2, Int(y))
      let fx = x - Double(ix)
      let fy = y - Double(iy)
      let p = pixels + iy * stride + ix * channels
      var top = Double(p[0]) * (1 - fx) + Double(p[channels]) * fx
      var bottom = Double(p[stride]) * (1 - fx) + Double(p[stride + channels]) * fx
      profile[k] = top * (1 - fy) + bottom * fy
      guard channels == 3 else { return }
      top = Double(p[1]) * (1 - fx) + Double(p[4]) * fx
      bottom = Double(p[stride + 1]) * (1 - fx) + Double(p[stride + 4]) * fx
      profileG[k] = top * (1 - fy) + bottom * fy
      top = Double(p[2]) * (1 - fx) + Double(p[5]) * fx
      bottom = Double(p[stride + 2]) * (1 - fx) + Double(p[stride + 5]) * fx
      profileB[k] = top * (1 - fy) + bottom * fy
    }
    // How far apart two profile points are: luma levels, or the length of
    // the colour difference over √3 (a gray step reads as in luma).
    func difference(_ i: Int, _ j: Int) -> Double {
      let r = profile[i] - profile[j]
      guard channels == 3 else { return abs(r) }
      let g = profileG[i] - profileG[j]
      let b = profileB[i] - profileB[j]
      return ((r * r + g * g + b * b) / 3).squareRoot()
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
        sample(px + nx * o, py + ny * o, k)
      }
      // Steps, favouring those near the expected place.
      for k in (center - steps)...(center + steps) {
        let derivative = difference(k + 1, k - 1) / 2
        derivatives[k] = derivative
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
        let peak = best > 0 ? derivatives[best] : 0
        guard best > 0, peak >= 3 else { break }
        // Sub-pixel: the vertex of the parabola through the three slopes.
        let left = derivatives[best - 1]
        let right = derivatives[best + 1]
        let denominator = left - 2 * peak + right
        let shift = denominator < 0 ? max(-0.5, min(0.5, 0.5 * (left - right) / denominator)) : 0
        var o = Double(best - center) + shift
        // The step's height and width: for a blurred step of height A with
        // a Gaussian profile of deviation σ, the peak slope is A / (σ √(2π)).
        var outer = min(3, best, last - best)
        var height = difference(best + outer, best - outer)
        var spread = height / (peak * (2 * Double.pi).squareRoot())
        if spread > 1 {
          // A wide step: measure its height further out.
          outer = min(Int((2.5 * spread).rounded(.up)) + 1, best, last - best)
          height = difference(best + outer, best - outer)
          spread = height / (peak * (2 * Double.pi).squareRoot())
        }
        if spread > 1.5 {
          // A wide (smeared) step has a flat top of slope where the peak is
          // noise: its middle is the centroid of the slope.
          let half = Int((2 * spread).rounded(.up))
          let floor = 0.25 * peak
          var sum = 0.0
          var moment = 0.0
          for k in max(1, best - half)...min(last - 1, best + half) {
            let weight = max(0, difference(k + 1, k - 1) / 2 - floor)
            sum += weight
            moment += weight * Double(k)
          }
          if sum > 0 { o = moment / sum - Double(center) }
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
    // Points of smeared steps scatter more: the line may be wider.
    var widths: [Double] = []
    for i in 0..<count where mask[i * slots] { widths.append(spreads[i * slots]) }
    widths.sort()
    let tolerance = max(1, min(3, 0.35 * widths[widths.count / 2]))
    // The line most sample points agree on (pairs of points far apart
    // along the side), then a least-squares fit to its points; then the
    // same again without those points, for a second choice.
    var results: [SideFit] = []
    available.update(from: mask, count: count * slots)
    for _ in 0..<2 {
      guard let fit = consensusLine(count: count, available: available, tolerance: tolerance) else { break }
      results.append(fit)
      for index in 0..<count * slots where available[index] {
        if abs(fit.line.distance(Point2(xs[index], ys[index]))) <= 2 * tolerance { available[index] = false }
      }
    }
    return results
  }

  /// `tolerance`: how far from the line (pixels) a point still counts.
  private func consensusLine(count: Int, available: UnsafeMutablePointer<Bool>, tolerance: Double) -> SideFit? {
    let slots = Self.stepsPerSample
    let total = count * slots
    var bestLine: Line2?
    var bestVotes = 0
    var bestStrength = 0.0
    // Every other sample point as a line's first point, and as its second
    // the points a third and a half of the side further on: a line along
    // one half of the side is among them (the other half may be glared
    // or hidden), and the least-squares fit to the agreeing points follows.
    for i in stride(from: 0, to: count - count / 3, by: 2) {
      for far in 0..<2 {
        let j = i + (far == 0 ? count / 3 : count / 2)
        guard j < count else { continue }
        for si in 0..<slots where available[i * slots + si] {
          for sj in 0..<slots where available[j * slots + sj] {
            let p = Point2(xs[i * slots + si], ys[i * slots + si])
            let q = Point2(xs[j * slots + sj], ys[j * slots + sj])
            let candidate = Line2(through: p, q)
            var votes = 0
            var strength = 0.0
            for k in 0..<count {
              for sk in 0..<slots where available[k * slots + sk] {
                if abs(candidate.distance(Point2(xs[k * slots + sk], ys[k * slots + sk]))) <= tolerance {
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
      chosen.update(repeating: false, count: total)
      for i in 0..<count {
        var nearest = -1
        var nearestDistance = pass == 0 ? tolerance : 0.8 * tolerance
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
