import CardGeometry
import Foundation
import Imaging

/// The detector's quadrilaterals: lines paired into cards seen on four
/// sides, or on three and completed, scored by the edges backing their
/// sides and ranked.
extension CardDetector {
  /// How fast a candidate's score falls with its shape residual: a card
  /// seen by the right camera has none, an inner rectangle of the card (below
  /// its header band, say) a few hundredths.
  static let residualScale = 0.04

  /// How much each side running on past a corner lowers a candidate's score.
  static let runOnPenalty = 0.25

  /// How many candidates, the best first, are checked for lines crossing them.
  static let crossingChecks = 40
  /// How much each line crossing a candidate's side lowers its score.
  static let crossingPenalty = 0.7

  /// The best `limit` of `candidates`, one of each card, in the coordinates of the image searched.
  func best(_ candidates: [Candidate], of search: Search, limit: Int) -> [Candidate] {
    var candidates = candidates.sorted { $0.score > $1.score }
    // A card lies on top of what is behind it: no edge of the background
    // runs across its sides. A quadrilateral made of lines of the clutter
    // mostly has some.
    for index in 0..<min(candidates.count, Self.crossingChecks) {
      let factor = exp(-Double(crossingLines(candidates[index])) * Self.crossingPenalty)
      candidates[index].score *= factor
      candidates[index].plausibility *= factor
    }
    candidates.sort { $0.score > $1.score }
    // One of each: a candidate whose corners are all near those of a
    // better one is the same card.
    var kept: [Candidate] = []
    for candidate in candidates where kept.count < limit {
      let same = kept.contains { other in
        candidate.corners.allSatisfy { corner in other.corners.contains { $0.distance(to: corner) < 2.5 } }
      }
      if !same { kept.append(candidate) }
    }
    return kept.map { candidate in
      // From working-pixel centres to `gray`'s pixel centres.
      Candidate(
        corners: candidate.corners.map {
          Point2(($0.x + 0.5) * search.scaleX - 0.5, ($0.y + 0.5) * search.scaleY - 0.5)
        },
        score: candidate.score, sides: candidate.sides, completedSide: candidate.completedSide,
        plausibility: candidate.plausibility)
    }
  }

  /// How many lines found cross a side of `candidate` between 25% and 75%
  /// of its length, with edges on both sides of the crossing.
  private func crossingLines(_ candidate: Candidate) -> Int {
    let corners = candidate.corners
    var sideLines: [Line2] = []
    var lengths: [Double] = []
    for k in 0..<4 {
      let a = corners[k]
      let b = corners[(k + 1) % 4]
      sideLines.append(Line2(through: a, b))
      lengths.append(a.distance(to: b))
    }
    return withSupport { support in
      var count = 0
      for index in 0..<lines.count where !candidate.sides.contains(index) {
        let line = lines[index]
        // Along the line, unit length.
        let direction = Point2(-line.ny, line.nx)
        for k in 0..<4 {
          let side = sideLines[k]
          // Nearly parallel lines do not cross in a way that can be told.
          guard abs(side.nx * line.nx + side.ny * line.ny) < 0.9, let point = side.intersection(line) else {
            continue
          }
          let a = corners[k]
          let b = corners[(k + 1) % 4]
          let t = ((point.x - a.x) * (b.x - a.x) + (point.y - a.y) * (b.y - a.y)) / (lengths[k] * lengths[k])
          guard t > 0.25, t < 0.75 else { continue }
          let reach = max(6, 0.15 * min(lengths[k], lengths[(k + 1) % 4]))
          let before = support(index, point - direction * reach, point)
          guard before >= 0.6 else { continue }
          let after = support(index, point, point + direction * reach)
          if after >= 0.6 {
            count += 1
            break
          }
        }
      }
      return count
    }
  }

  /// Cards seen on three sides: every pair of roughly opposite lines with a
  /// third joining them, completed by the card's proportions
  /// (`CardCompletion`), kept when the three sides are well backed by edges
  /// and the opposite lines do not run on past the completed corners.
  func completions(minimumSide: Double, camera: PinholeCamera, crossing: [Point2?]) -> [Candidate] {
    let count = lines.count
    guard count >= 3 else { return [] }
    let width = Double(work.width)
    let height = Double(work.height)
    let lines = self.lines
    var found: [Candidate] = []
    withSupport { support in
      for i in 0..<count {
        for j in i + 1..<count {
          let cosine = lines[i].nx * lines[j].nx + lines[i].ny * lines[j].ny
          guard abs(cosine) > 0.766 else { continue }
          let separation = abs(lines[i].offset - lines[j].offset * (cosine > 0 ? 1 : -1))
          guard separation >= minimumSide * 0.6 else { continue }
          for k in 0..<count where k != i && k != j {
            let across = abs(lines[i].nx * lines[k].nx + lines[i].ny * lines[k].ny)
            guard across < 0.82 else { continue }
            guard let p0 = crossing[i * count + k], let p1 = crossing[k * count + j] else { continue }
            guard p0.distance(to: p1) >= minimumSide * 0.6 else { continue }
            let sb = support(k, p0, p1)
            guard sb >= 0.6 else { continue }
            CardCompletion.forEach(a1: lines[i], a2: lines[j], b: lines[k], p0: p0, p1: p1, camera: camera) {
              c0, c1, c2, c3 in
              guard c2.x >= -1, c2.y >= -1, c2.x <= width, c2.y <= height, c3.x >= -1, c3.y >= -1, c3.x <= width,
                c3.y <= height, Quad.isConvex(c0, c1, c2, c3)
              else { return }
              let sa2 = support(j, c1, c2)
              guard sa2 >= 0.5 else { return }
              let sa1 = support(i, c3, c0)
              guard sa1 >= 0.5 else { return }
              // A card's sides end at its corners; a longer shape's run on.
              let past1 = support(i, c3, c3 + (c3 - c0) * 0.25)
              let past2 = support(j, c2, c2 + (c2 - c1) * 0.25)
              guard past1 < 0.5 || past2 < 0.5 else { return }
              let s3 = segmentSupport(c2, c3)
              let perimeter =
                sb * c0.distance(to: c1) + sa2 * c1.distance(to: c2) + s3 * c2.distance(to: c3) + sa1
                * c3.distance(to: c0)
              let mean = (sb + sa2 + s3 + sa1) / 4
              var runOn = 0
              if past1 >= 0.5 { runOn += 1 }
              if past2 >= 0.5 { runOn += 1 }
              if support(i, c0, c0 + (c0 - c3) * 0.25) >= 0.5 { runOn += 1 }
              if support(k, c0, c0 + (c0 - c1) * 0.25) >= 0.5 { runOn += 1 }
              if support(k, c1, c1 + (c1 - c0) * 0.25) >= 0.5 { runOn += 1 }
              if support(j, c1, c1 + (c1 - c2) * 0.25) >= 0.5 { runOn += 1 }
              // Below a card found on all four sides of the same strength.
              let ending = exp(-Double(runOn) * Self.runOnPenalty)
              let score = perimeter * mean * 0.8 * ending
              let corners = Quad.clockwise([c0, c1, c2, c3])
              // The completed side runs from c2 to c3 whichever way round the corners went.
              let completed = (0..<4).first { k in
                (corners[k] == c2 && corners[(k + 1) % 4] == c3) || (corners[k] == c3 && corners[(k + 1) % 4] == c2)
              }
              found.append(
                Candidate(corners: corners, score: score, sides: [i, k, j, -1], completedSide: completed))
            }
          }
        }
      }
    }
    return found
  }

  /// Cards seen on all four sides: two roughly opposite pairs of lines
  /// whose sides are backed by edges and make a card's shape for `camera`.
  func quads(minimumSide: Double, camera: PinholeCamera, crossing: [Point2?]) -> [Candidate] {
    let count = lines.count
    guard count >= 4 else { return [] }
    let lines = self.lines
    // Roughly opposite pairs: within 40° of each other, far enough apart.
    var pairs: [(Int, Int)] = []
    for i in 0..<count {
      for j in i + 1..<count {
        let cosine = lines[i].nx * lines[j].nx + lines[i].ny * lines[j].ny
        guard abs(cosine) > 0.766 else { continue }
        let separation = abs(lines[i].offset - lines[j].offset * (cosine > 0 ? 1 : -1))
        guard separation >= minimumSide else { continue }
        pairs.append((i, j))
      }
    }
    // Per pair and line: how much of the line between the pair's two
    // lines has edges (0 when it crosses them outside the image); and the
    // lines worth pairing.
    var pairIndex = [Int](repeating: -1, count: count * count)
    for (index, pair) in pairs.enumerated() { pairIndex[pair.0 * count + pair.1] = index }
    var between = [Double](repeating: 0, count: pairs.count * count)
    var crossers = [[Int]](repeating: [], count: pairs.count)
    withSupport { support in
      for (index, (a1, a2)) in pairs.enumerated() {
        for b in 0..<count where b != a1 && b != a2 {
          guard let c0 = crossing[a1 * count + b], let c1 = crossing[b * count + a2] else { continue }
          let s = support(b, c0, c1)
          between[index * count + b] = s
          if s >= 0.3 { crossers[index].append(b) }
        }
      }
    }
    var found: [Candidate] = []
    let cardCorners = CardFormat.corners
    let shortestSide = minimumSide * 0.6
    for p in 0..<pairs.count {
      let (a1, a2) = pairs[p]
      let across = crossers[p]
      guard across.count >= 2 else { continue }
      for first in 0..<across.count - 1 {
        for second in first + 1..<across.count {
          let b1 = across[first]
          let b2 = across[second]
          // Each quadrilateral once: (a1, a2) is the earlier pair.
          let q = pairIndex[b1 * count + b2]
          guard q > p else { continue }
          // The two directions must differ by 35° or more.
          let cosine = abs(lines[a1].nx * lines[b1].nx + lines[a1].ny * lines[b1].ny)
          guard cosine < 0.82 else { continue }
          let s1 = between[q * count + a2]
          guard s1 >= 0.3 else { continue }
          let s3 = between[q * count + a1]
          guard s3 >= 0.3 else { continue }
          let s0 = between[p * count + b1]
          let s2 = between[p * count + b2]
          let mean = (s0 + s1 + s2 + s3) / 4
          guard mean >= 0.65 else { continue }
          guard let c0 = crossing[a1 * count + b1], let c1 = crossing[b1 * count + a2],
            let c2 = crossing[a2 * count + b2], let c3 = crossing[b2 * count + a1]
          else { continue }
          guard Quad.isConvex(c0, c1, c2, c3) else { continue }
          let side0 = c0.distance(to: c1)
          let side1 = c1.distance(to: c2)
          let side2 = c2.distance(to: c3)
          let side3 = c3.distance(to: c0)
          guard min(side0, side1, side2, side3) >= shortestSide else { continue }
          // A card's shape for this camera, in one of its two orientations.
          let ordered = Quad.clockwise([c0, c1, c2, c3])
          var residual = Double.infinity
          for start in 0..<2 {
            let image = (0..<4).map { ordered[(start + $0) % 4] }
            guard let h = Homography(from: cardCorners, to: image),
              let result = CardPose.from(homography: h, camera: camera)
            else { continue }
            residual = min(residual, result.residual)
          }
          guard residual < 0.2 else { continue }
          let perimeter = s0 * side0 + s1 * side1 + s2 * side2 + s3 * side3
          // A card's sides end at its corners; lines of the clutter behind
          // it that happen to make a card's shape mostly run on.
          let runOn = withSupport { support in
            var count = 0
            if support(a1, c0, c0 + (c0 - c3) * 0.25) >= 0.5 { count += 1 }
            if support(b1, c0, c0 + (c0 - c1) * 0.25) >= 0.5 { count += 1 }
            if support(b1, c1, c1 + (c1 - c0) * 0.25) >= 0.5 { count += 1 }
            if support(a2, c1, c1 + (c1 - c2) * 0.25) >= 0.5 { count += 1 }
            if support(a2, c2, c2 + (c2 - c1) * 0.25) >= 0.5 { count += 1 }
            if support(b2, c2, c2 + (c2 - c3) * 0.25) >= 0.5 { count += 1 }
            if support(b2, c3, c3 + (c3 - c2) * 0.25) >= 0.5 { count += 1 }
            if support(a1, c3, c3 + (c3 - c0) * 0.25) >= 0.5 { count += 1 }
            return count
          }
          let ending = exp(-Double(runOn) * Self.runOnPenalty)
          found.append(
            Candidate(
              corners: ordered, score: perimeter * mean * exp(-residual / Self.residualScale) * ending,
              sides: [a1, b1, a2, b2]))
        }
      }
    }
    return found
  }
}
