/// One operating point of a presentation-attack detector: the error rates when
/// every session whose score is at least `threshold` is accepted.
public struct DETPoint: Hashable, Sendable {
  public var threshold: Double
  /// The APCER of the worst attack species at this threshold (ISO/IEC 30107-3's APCER of the system).
  public var apcerMax: Double
  /// The share of bona fide sessions rejected (score below the threshold).
  public var bpcer: Double
  /// Each species' APCER; nil unless the curve was asked for them.
  public var apcerBySpecies: [String: Double]?

  public init(threshold: Double, apcerMax: Double, bpcer: Double, apcerBySpecies: [String: Double]? = nil) {
    self.threshold = threshold
    self.apcerMax = apcerMax
    self.bpcer = bpcer
    self.apcerBySpecies = apcerBySpecies
  }
}

/// The scores of an evaluation: a higher score means more likely bona fide, and
/// a session is accepted at threshold τ when its score ≥ τ. Attack scores are
/// grouped by presentation attack instrument species, since APCER is per species.
///
/// Scores must be finite (a precondition). A species with no scores has no APCER
/// and is left out of every rate.
public struct ScoreSet: Sendable {
  public let bonaFide: [Double]
  public let attacks: [String: [Double]]

  /// Each list sorted ascending once, so that every threshold is a position in them.
  private let sortedBonaFide: [Double]
  private let sortedAttacks: [(species: String, scores: [Double])]

  public init(bonaFide: [Double], attacks: [String: [Double]]) {
    precondition(bonaFide.allSatisfy(\.isFinite), "a bona fide score is not finite")
    precondition(attacks.values.allSatisfy { $0.allSatisfy(\.isFinite) }, "an attack score is not finite")
    self.bonaFide = bonaFide
    self.attacks = attacks
    sortedBonaFide = bonaFide.sorted()
    sortedAttacks = attacks.filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }.map { ($0.key, $0.value.sorted()) }
  }

  /// Whether both labels have scores: without either, no rate trades against the other.
  private var hasBothLabels: Bool { !sortedBonaFide.isEmpty && !sortedAttacks.isEmpty }

  /// The DET curve: one point at every distinct score (ascending), then the end
  /// point that rejects everything (threshold: the highest score's next larger
  /// double, APCER 0, BPCER 1). The other end, everything accepted (APCER 1,
  /// BPCER 0), is the point at the lowest score. Empty when there are no scores;
  /// a label without scores has a rate of 0 throughout.
  ///
  /// The lists are sorted once and then walked together, so the curve costs
  /// O(N log N) for N scores, plus O(species) per point.
  public func detCurve(perSpecies: Bool = false) -> [DETPoint] {
    var thresholds = sortedBonaFide
    for attack in sortedAttacks { thresholds += attack.scores }
    thresholds.sort()
    guard let highest = thresholds.last else { return [] }
    var distinct: [Double] = []
    distinct.reserveCapacity(thresholds.count + 1)
    for threshold in thresholds where threshold != distinct.last { distinct.append(threshold) }
    distinct.append(highest.nextUp)

    // Below each threshold: how many bona fide scores (rejected) and how many of each species' scores (rejected).
    var bonaFideBelow = 0
    var attacksBelow = [Int](repeating: 0, count: sortedAttacks.count)
    var curve: [DETPoint] = []
    curve.reserveCapacity(distinct.count)
    for threshold in distinct {
      while bonaFideBelow < sortedBonaFide.count && sortedBonaFide[bonaFideBelow] < threshold { bonaFideBelow += 1 }
      var apcerMax = 0.0
      var bySpecies: [String: Double] = [:]
      for (index, attack) in sortedAttacks.enumerated() {
        while attacksBelow[index] < attack.scores.count && attack.scores[attacksBelow[index]] < threshold {
          attacksBelow[index] += 1
        }
        let apcer = Double(attack.scores.count - attacksBelow[index]) / Double(attack.scores.count)
        apcerMax = max(apcerMax, apcer)
        if perSpecies { bySpecies[attack.species] = apcer }
      }
      let bpcer = sortedBonaFide.isEmpty ? 0 : Double(bonaFideBelow) / Double(sortedBonaFide.count)
      curve.append(
        DETPoint(threshold: threshold, apcerMax: apcerMax, bpcer: bpcer, apcerBySpecies: perSpecies ? bySpecies : nil))
    }
    return curve
  }

  /// The equal error rate: where APCER (of the worst species) and BPCER cross.
  /// Along the curve APCER falls and BPCER rises; at the first point where
  /// APCER ≤ BPCER they have crossed. When they are equal there, that point is
  /// the answer; otherwise the crossing is where the straight segment from the
  /// point before meets the line APCER = BPCER, and its threshold is the two
  /// points' thresholds interpolated with the same weight. Nil unless there are
  /// bona fide scores and attack scores.
  public func equalErrorRate() -> (rate: Double, threshold: Double)? {
    guard hasBothLabels else { return nil }
    let curve = detCurve()
    // The first point accepts everything (APCER 1, BPCER 0) and the last rejects everything
    // (APCER 0, BPCER 1), so the crossing is after the first point and at or before the last.
    guard let crossed = curve.firstIndex(where: { $0.apcerMax <= $0.bpcer }), crossed > 0 else { return nil }
    let after = curve[crossed]
    if after.apcerMax == after.bpcer { return (after.apcerMax, after.threshold) }
    let before = curve[crossed - 1]
    let gapBefore = before.apcerMax - before.bpcer
    let gapAfter = after.apcerMax - after.bpcer
    let weight = gapBefore / (gapBefore - gapAfter)
    let rate = before.apcerMax + weight * (after.apcerMax - before.apcerMax)
    let threshold = before.threshold + weight * (after.threshold - before.threshold)
    return (rate, threshold)
  }

  /// The lowest BPCER over the thresholds whose APCER (of the worst species) is at
  /// most `target`: BPCER20 is target 0.05, BPCER100 target 0.01. Among thresholds
  /// with that BPCER, the one with the lowest APCER (the lowest such threshold on a
  /// full tie). Nil unless there are bona fide scores and attack scores, or when
  /// no threshold qualifies (a negative target).
  public func bpcer(atAPCER target: Double) -> (bpcer: Double, threshold: Double)? {
    guard hasBothLabels else { return nil }
    let best = detCurve().filter { $0.apcerMax <= target }.min { ($0.bpcer, $0.apcerMax) < ($1.bpcer, $1.apcerMax) }
    return best.map { ($0.bpcer, $0.threshold) }
  }

  /// The lowest APCER (of the worst species) over the thresholds whose BPCER is at
  /// most `target`. Among thresholds with that APCER, the one with the lowest BPCER
  /// (the lowest such threshold on a full tie). Nil unless there are bona fide
  /// scores and attack scores, or when no threshold qualifies (a negative target).
  public func apcer(atBPCER target: Double) -> (apcer: Double, threshold: Double)? {
    guard hasBothLabels else { return nil }
    let best = detCurve().filter { $0.bpcer <= target }.min { ($0.apcerMax, $0.bpcer) < ($1.apcerMax, $1.bpcer) }
    return best.map { ($0.apcerMax, $0.threshold) }
  }
}
