import PADMetrics
import Randomness
import Testing

/// A DET point as (threshold, APCER of the worst species, BPCER), for comparing curves.
private func triples(_ curve: [DETPoint]) -> [[Double]] { curve.map { [$0.threshold, $0.apcerMax, $0.bpcer] } }

private let third = 1.0 / 3
private let twoThirds = 2.0 / 3

@Suite struct ScoreSetTests {
  /// One species, with ties inside each label and across them (0.6 is a bona fide and an attack score).
  /// Accepted means score ≥ τ, so at τ = 0.6 the attack scored 0.6 is accepted and the bona fide 0.6s are too.
  ///
  ///   τ      attacks ≥ τ (of 3)   bona fide < τ (of 4)
  ///   0.1    3 → 1                0 → 0
  ///   0.2    2 → 2/3              0 → 0
  ///   0.6    2 → 2/3              1 (0.2) → 1/4
  ///   0.7    1 → 1/3              3 → 3/4
  ///   0.9    0 → 0                3 → 3/4
  ///   0.9⁺   0 → 0                4 → 1       (the end point that rejects everything)
  ///
  /// EER: APCER first falls to BPCER or below at 0.7; from (2/3, 1/4) at 0.6 to (1/3, 3/4) at 0.7 the gap
  /// goes from 5/12 to −5/12, so the weight is 1/2: the rate 2/3 − 1/6 = 1/4 + 1/4 = 1/2, threshold 0.65.
  let oneSpecies = ScoreSet(bonaFide: [0.9, 0.6, 0.2, 0.6], attacks: ["print": [0.7, 0.1, 0.6]])

  @Test func theCurveOfOneSpeciesWithTies() {
    let expected: [[Double]] = [
      [0.1, 1, 0], [0.2, twoThirds, 0], [0.6, twoThirds, 0.25], [0.7, third, 0.75], [0.9, 0, 0.75],
      [(0.9).nextUp, 0, 1],
    ]
    #expect(triples(oneSpecies.detCurve()) == expected)
    #expect(oneSpecies.detCurve().allSatisfy { $0.apcerBySpecies == nil })
    let printAPCER: [Double?] = [1, twoThirds, twoThirds, third, 0, 0]
    #expect(oneSpecies.detCurve(perSpecies: true).map { $0.apcerBySpecies?["print"] } == printAPCER)
  }

  @Test func theEqualErrorRateIsInterpolatedBetweenTheTwoPointsAroundTheCrossing() throws {
    let eer = try #require(oneSpecies.equalErrorRate())
    #expect(abs(eer.rate - 0.5) < 1e-15)
    #expect(abs(eer.threshold - 0.65) < 1e-15)
  }

  /// BPCER at an APCER: APCER ≤ 0.05 only from 0.9 on, where BPCER is 3/4. At APCER ≤ 0.5, 0.7 and 0.9 both
  /// give BPCER 3/4; 0.9 is the one returned, since its APCER (0) is lower than 0.7's (1/3).
  /// APCER at a BPCER: BPCER ≤ 1/4 at 0.1, 0.2 and 0.6, the lowest APCER 2/3 at 0.2 and 0.6; 0.2 rejects
  /// no bona fide session, 0.6 one, so 0.2. BPCER ≤ 0.8: 0.9 gives APCER 0 and BPCER 3/4.
  @Test func operatingPointsTakeTheBetterOfTiedThresholds() throws {
    let bpcer20 = try #require(oneSpecies.bpcer(atAPCER: 0.05))
    #expect(bpcer20.bpcer == 0.75 && bpcer20.threshold == 0.9)
    let atHalf = try #require(oneSpecies.bpcer(atAPCER: 0.5))
    #expect(atHalf.bpcer == 0.75 && atHalf.threshold == 0.9)
    let atQuarter = try #require(oneSpecies.apcer(atBPCER: 0.25))
    #expect(atQuarter.apcer == twoThirds && atQuarter.threshold == 0.2)
    let atFourFifths = try #require(oneSpecies.apcer(atBPCER: 0.8))
    #expect(atFourFifths.apcer == 0 && atFourFifths.threshold == 0.9)
  }

  /// Two species; the worst one changes along the curve (replay's scores are low, print's spread).
  ///
  ///   τ      print ≥ τ (of 3)   replay ≥ τ (of 2)   max    bona fide < τ (of 2)
  ///   0.1    1                  1                   1      0
  ///   0.3    2/3                1                   1      0     (replay is the worst)
  ///   0.4    2/3                1/2                 2/3    0     (print is the worst)
  ///   0.5    2/3                0                   2/3    0
  ///   0.7    2/3                0                   2/3    1/2
  ///   0.8    1/3                0                   1/3    1/2
  ///   0.9    1/3                0                   1/3    1
  ///   0.9⁺   0                  0                   0      1
  ///
  /// EER: first APCER ≤ BPCER at 0.8; gaps 1/6 at 0.7 and −1/6 at 0.8, weight 1/2: rate 1/2, threshold 0.75.
  /// BPCER at APCER ≤ 0.05: only the last point, BPCER 1. At APCER ≤ 0.5: 0.8, BPCER 1/2.
  /// APCER at BPCER 0: the lowest APCER 2/3 at 0.4 and 0.5 (both BPCER 0), so the lower threshold, 0.4.
  let twoSpecies = ScoreSet(bonaFide: [0.5, 0.8], attacks: ["print": [0.1, 0.7, 0.9], "replay": [0.3, 0.4]])

  @Test func theWorstSpeciesChangesAlongTheCurve() throws {
    let curve = twoSpecies.detCurve(perSpecies: true)
    let expected: [[Double]] = [
      [0.1, 1, 0], [0.3, 1, 0], [0.4, twoThirds, 0], [0.5, twoThirds, 0], [0.7, twoThirds, 0.5], [0.8, third, 0.5],
      [0.9, third, 1], [(0.9).nextUp, 0, 1],
    ]
    #expect(triples(curve) == expected)
    #expect(curve[1].apcerBySpecies == ["print": twoThirds, "replay": 1])
    #expect(curve[2].apcerBySpecies == ["print": twoThirds, "replay": 0.5])
    let eer = try #require(twoSpecies.equalErrorRate())
    #expect(abs(eer.rate - 0.5) < 1e-15 && abs(eer.threshold - 0.75) < 1e-15)
    let bpcer20 = try #require(twoSpecies.bpcer(atAPCER: 0.05))
    #expect(bpcer20.bpcer == 1 && bpcer20.threshold == (0.9).nextUp)
    let atHalf = try #require(twoSpecies.bpcer(atAPCER: 0.5))
    #expect(atHalf.bpcer == 0.5 && atHalf.threshold == 0.8)
    let apcerAtNone = try #require(twoSpecies.apcer(atBPCER: 0))
    #expect(apcerAtNone.apcer == twoThirds && apcerAtNone.threshold == 0.4)
  }

  /// bona fide 0.1, 0.4; attacks 0.3, 0.6. At 0.1: (1, 0); at 0.3: (1, 1/2); at 0.4: (1/2, 1/2): the rates
  /// are equal at a point, which is the EER itself, with no interpolation.
  @Test func anEqualErrorRateOnAPointIsThatPoint() throws {
    let scores = ScoreSet(bonaFide: [0.1, 0.4], attacks: ["mask": [0.3, 0.6]])
    let eer = try #require(scores.equalErrorRate())
    #expect(eer.rate == 0.5 && eer.threshold == 0.4)
  }

  /// Every score 0.5: at 0.5 everything is accepted (1, 0), just above it everything is rejected (0, 1);
  /// the segment between them crosses APCER = BPCER half way, at 1/2.
  @Test func allEqualScoresGiveTwoPointsAndAnEEROfOneHalf() throws {
    let scores = ScoreSet(bonaFide: [0.5, 0.5, 0.5], attacks: ["print": [0.5, 0.5]])
    let expected: [[Double]] = [[0.5, 1, 0], [(0.5).nextUp, 0, 1]]
    #expect(triples(scores.detCurve()) == expected)
    let eer = try #require(scores.equalErrorRate())
    #expect(eer.rate == 0.5)
    #expect(eer.threshold >= 0.5 && eer.threshold <= (0.5).nextUp)
    let bpcer20 = try #require(scores.bpcer(atAPCER: 0.05))
    #expect(bpcer20.bpcer == 1 && bpcer20.threshold == (0.5).nextUp)
    let apcer = try #require(scores.apcer(atBPCER: 0.05))
    #expect(apcer.apcer == 1 && apcer.threshold == 0.5)
  }

  @Test func withoutBothLabelsThereIsNoTradeOff() {
    for scores in [
      ScoreSet(bonaFide: [0.2, 0.4], attacks: [:]), ScoreSet(bonaFide: [0.2], attacks: ["print": []]),
      ScoreSet(bonaFide: [], attacks: ["print": [0.3]]), ScoreSet(bonaFide: [], attacks: [:]),
    ] {
      #expect(scores.equalErrorRate() == nil)
      #expect(scores.bpcer(atAPCER: 0.05) == nil)
      #expect(scores.apcer(atBPCER: 0.05) == nil)
    }
    #expect(ScoreSet(bonaFide: [], attacks: [:]).detCurve().isEmpty)
    // Bona fide only: every point has APCER 0, BPCER rising from 0 to 1.
    let bonaFideOnly: [[Double]] = [[0.2, 0, 0], [0.4, 0, 0.5], [(0.4).nextUp, 0, 1]]
    #expect(triples(ScoreSet(bonaFide: [0.2, 0.4], attacks: [:]).detCurve()) == bonaFideOnly)
  }

  @Test func aSpeciesWithNoScoresIsLeftOut() {
    let withEmpty = ScoreSet(bonaFide: [0.2, 0.6], attacks: ["print": [0.4], "mask": []])
    let without = ScoreSet(bonaFide: [0.2, 0.6], attacks: ["print": [0.4]])
    #expect(triples(withEmpty.detCurve()) == triples(without.detCurve()))
    #expect(withEmpty.detCurve(perSpecies: true).allSatisfy { $0.apcerBySpecies?.keys.sorted() == ["print"] })
  }

  /// 10^5 bona fide scores 0, 1, …, N−1 and as many attacks at 0.5, 1.5, …: at τ = k, k/N of the bona fide
  /// sessions are rejected and (N−k)/N of the attacks accepted, so the rates are equal (1/2) at k = N/2.
  /// A curve made by counting for every threshold would take about 4·10^10 steps here.
  @Test func aCorpusOfTheSizeEvaluationsHave() throws {
    let count = 100_000
    let scores = ScoreSet(
      bonaFide: (0..<count).map { Double($0) }, attacks: ["print": (0..<count).map { Double($0) + 0.5 }])
    let curve = scores.detCurve()
    #expect(curve.count == 2 * count + 1)
    let middle = try #require(curve.first { $0.threshold == Double(count / 2) })
    #expect(middle.apcerMax == 0.5 && middle.bpcer == 0.5)
    let eer = try #require(scores.equalErrorRate())
    #expect(eer.rate == 0.5 && eer.threshold == Double(count / 2))
  }
}

/// The curve and the operating points against counting every score at every threshold, on seeded random
/// score sets whose scores fall on a coarse grid, so that ties within and across labels are common.
@Suite struct ScoreSetBruteForceTests {
  struct BruteForce {
    var bonaFide: [Double]
    var attacks: [String: [Double]]

    var thresholds: [Double] {
      let all = Set(bonaFide + attacks.values.joined()).sorted()
      return all.isEmpty ? [] : all + [all.last!.nextUp]
    }

    func point(_ threshold: Double) -> DETPoint {
      var bySpecies: [String: Double] = [:]
      for (species, scores) in attacks where !scores.isEmpty {
        bySpecies[species] = Double(scores.filter { $0 >= threshold }.count) / Double(scores.count)
      }
      let bpcer = bonaFide.isEmpty ? 0 : Double(bonaFide.filter { $0 < threshold }.count) / Double(bonaFide.count)
      return DETPoint(
        threshold: threshold, apcerMax: bySpecies.values.max() ?? 0, bpcer: bpcer, apcerBySpecies: bySpecies)
    }

    var curve: [DETPoint] { thresholds.map(point) }
  }

  static func randomScores(seed: UInt64) -> BruteForce {
    var random = SeededRandom(seed: seed)
    // A grid of 11 values (ties) or any value in [0, 1) (few ties), half of the sets each.
    let coarse = random.integer(0...1) == 0
    func score() -> Double { coarse ? Double(random.integer(0...10)) / 10 : random.nextDouble() }
    let bonaFide = (0..<random.integer(0...40)).map { _ in score() }
    var attacks: [String: [Double]] = [:]
    for species in ["print", "replay", "mask"].prefix(random.integer(0...3)) {
      attacks[species] = (0..<random.integer(0...30)).map { _ in score() }
    }
    return BruteForce(bonaFide: bonaFide, attacks: attacks)
  }

  @Test(arguments: 0..<200 as Range<UInt64>)
  func agreesWithCountingEveryThreshold(seed: UInt64) throws {
    let brute = Self.randomScores(seed: seed)
    let scores = ScoreSet(bonaFide: brute.bonaFide, attacks: brute.attacks)
    let expected = brute.curve
    let curve = scores.detCurve(perSpecies: true)
    #expect(curve == expected)

    let hasBoth = !brute.bonaFide.isEmpty && brute.attacks.values.contains { !$0.isEmpty }
    guard hasBoth else {
      #expect(scores.equalErrorRate() == nil && scores.bpcer(atAPCER: 0.05) == nil)
      return
    }
    for target in [0, 0.01, 0.05, 0.1, 0.5, 1] {
      // The lowest rate over every threshold that qualifies; the threshold must give exactly these rates.
      let bpcer = try #require(scores.bpcer(atAPCER: target))
      #expect(bpcer.bpcer == expected.filter { $0.apcerMax <= target }.map(\.bpcer).min())
      #expect(brute.point(bpcer.threshold).apcerMax <= target && brute.point(bpcer.threshold).bpcer == bpcer.bpcer)
      let apcer = try #require(scores.apcer(atBPCER: target))
      #expect(apcer.apcer == expected.filter { $0.bpcer <= target }.map(\.apcerMax).min())
      #expect(brute.point(apcer.threshold).bpcer <= target && brute.point(apcer.threshold).apcerMax == apcer.apcer)
    }
    // The EER lies on the segment between the last point where APCER > BPCER and the next one, where the
    // segment meets APCER = BPCER: interpolating both rates with one weight gives the same number.
    let eer = try #require(scores.equalErrorRate())
    let after = try #require(expected.firstIndex { $0.apcerMax <= $0.bpcer })
    let (before, next) = (expected[after - 1], expected[after])
    #expect(before.apcerMax > before.bpcer)
    let weight = (before.apcerMax - before.bpcer) / ((before.apcerMax - before.bpcer) - (next.apcerMax - next.bpcer))
    let interpolatedBPCER = before.bpcer + weight * (next.bpcer - before.bpcer)
    #expect(abs(eer.rate - interpolatedBPCER) < 1e-12)
    #expect(
      eer.rate >= min(next.apcerMax, before.bpcer) - 1e-12 && eer.rate <= max(before.apcerMax, next.bpcer) + 1e-12)
    #expect(eer.threshold >= before.threshold && eer.threshold <= next.threshold)
  }

  @Test func theRandomSetsHaveTiesAcrossLabels() {
    // Without ties between a bona fide and an attack score, the ≥ / < rule would go untested.
    let tied = (0..<200 as Range<UInt64>).filter { seed in
      let brute = Self.randomScores(seed: seed)
      return !Set(brute.bonaFide).isDisjoint(with: brute.attacks.values.joined())
    }
    #expect(tied.count > 50)
  }
}
