import PADMetrics
import Randomness
import Testing

@Suite struct ParetoFrontTests {
  /// 3 (0.2, 0.3) loses to 1 (0.2, 0.2) on BPCER at the same APCER; 4 (0.3, 0.2) loses to 1 on APCER at the
  /// same BPCER; 0 and 5 are the same point and both stay. By APCER: 2 (0.05), 0 and 5 (0.1), 1 (0.2), 6 (0.4).
  @Test func keepsThePointsNothingBeatsOnBoth() {
    let points: [(apcer: Double, bpcer: Double)] = [
      (0.1, 0.5), (0.2, 0.2), (0.05, 0.9), (0.2, 0.3), (0.3, 0.2), (0.1, 0.5), (0.4, 0.1),
    ]
    #expect(ParetoFront.indices(points: points) == [2, 0, 5, 1, 6])
  }

  @Test func smallCases() {
    #expect(ParetoFront.indices(points: []) == [])
    #expect(ParetoFront.indices(points: [(0.3, 0.3)]) == [0])
    #expect(ParetoFront.indices(points: [(0.3, 0.3), (0.3, 0.3), (0.3, 0.3)]) == [0, 1, 2])
    // One point better on both: the only one left.
    #expect(ParetoFront.indices(points: [(0.5, 0.5), (0.1, 0.1), (0.2, 0.9)]) == [1])
    // A pure trade-off: every point stays, ordered by APCER.
    #expect(ParetoFront.indices(points: [(0.3, 0.1), (0.1, 0.3), (0.2, 0.2)]) == [1, 2, 0])
  }

  /// Against the definition, every pair compared, on seeded points of a coarse grid (many ties).
  @Test(arguments: 0..<100 as Range<UInt64>)
  func agreesWithComparingEveryPair(seed: UInt64) {
    var random = SeededRandom(seed: seed)
    let points: [(apcer: Double, bpcer: Double)] = (0..<random.integer(0...30)).map { _ in
      (Double(random.integer(0...6)) / 6, Double(random.integer(0...6)) / 6)
    }
    func dominates(_ q: (apcer: Double, bpcer: Double), _ p: (apcer: Double, bpcer: Double)) -> Bool {
      q.apcer <= p.apcer && q.bpcer <= p.bpcer && (q.apcer < p.apcer || q.bpcer < p.bpcer)
    }
    let expected = points.indices.filter { p in !points.contains { dominates($0, points[p]) } }
      .sorted { (points[$0].apcer, points[$0].bpcer, $0) < (points[$1].apcer, points[$1].bpcer, $1) }
    #expect(ParetoFront.indices(points: points) == expected)
  }
}
