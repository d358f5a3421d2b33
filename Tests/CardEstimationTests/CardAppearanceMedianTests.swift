import Randomness
import Testing

@testable import CardEstimation

/// The face alignment weighs its residuals by their median, now selected
/// rather than sorted: the value must be the one sorting gives, for any
/// rank, with ties, runs and already ordered input.
@Suite struct CardAppearanceMedianTests {
  static func selected(_ values: [Double], rank: Int) -> Double {
    let scratch = UnsafeMutablePointer<Double>.allocate(capacity: values.count)
    defer { scratch.deallocate() }
    scratch.initialize(from: values, count: values.count)
    return CardAppearance.select(scratch, count: values.count, rank: rank)
  }

  @Test func selectionGivesTheValueSortingGives() {
    var random = SeededRandom(seed: 11)
    for trial in 0..<300 {
      let count = 1 + trial % 97
      // Few distinct values on some trials: ties are where a partition slips.
      let distinct = trial % 3 == 0 ? 3.0 : 1000.0
      let values = (0..<count).map { _ in (random.uniform(0, distinct)).rounded() }
      let sorted = values.sorted()
      for rank in Set([0, count / 2, count - 1, Int(random.uniform(0, Double(count)))]) {
        #expect(Self.selected(values, rank: rank) == sorted[rank], "trial \(trial), rank \(rank) of \(count)")
      }
    }
  }

  @Test func orderedReversedAndConstantInput() {
    let ordered = (0..<1440).map(Double.init)
    #expect(Self.selected(ordered, rank: 720) == 720)
    #expect(Self.selected(ordered.reversed(), rank: 720) == 720)
    #expect(Self.selected([Double](repeating: 2.5, count: 1440), rank: 720) == 2.5)
    #expect(Self.selected([7], rank: 0) == 7)
  }
}
