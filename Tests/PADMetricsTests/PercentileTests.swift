import PADMetrics
import Randomness
import TestSupport
import Testing

@Suite struct PercentileTests {
  /// [15, 20, 35, 40, 50] (given unsorted): the 40th percentile is at position 4 · 0.4 = 1.6, between 20 and
  /// 35: 20 + 0.6 · 15 = 29. The median of 1…4 is at 1.5: 2.5. The 95th of 1…20 is at 19 · 0.95 = 18.05,
  /// between 19 and 20: 19.05.
  @Test func handWorkedValues() throws {
    let values: [Double] = [40, 15, 50, 35, 20]
    #expect(try abs(#require(Percentile.of(values, 40)) - 29) < 1e-12)
    #expect(Percentile.of(values, 0) == 15)
    #expect(Percentile.of(values, 50) == 35)
    #expect(Percentile.of(values, 100) == 50)
    #expect(Percentile.of([1, 2, 3, 4], 50) == 2.5)
    #expect(try abs(#require(Percentile.of((1...20).map(Double.init), 95)) - 19.05) < 1e-12)
    #expect(Percentile.of([7], 95) == 7)
  }

  @Test func hasNoValueForNothingOrAnImpossiblePercentage() {
    #expect(Percentile.of([], 50) == nil)
    #expect(Percentile.of([1, 2], -1) == nil)
    #expect(Percentile.of([1, 2], 100.5) == nil)
    #expect(Percentile.of([1, 2], .nan) == nil)
    #expect(Percentile.of([1, .nan], 50) == nil)
  }
}

/// The same percentiles from `numpy.percentile` (its default, `method="linear"`), on seeded samples.
@Suite(.enabled(if: ScientificPython.runs, Comment(rawValue: ScientificPython.skipReason)))
struct PercentileNumPyTests {
  static let percentages: [Double] = [0, 1, 5, 25, 33.3, 50, 66.7, 75, 90, 95, 99, 99.9, 100]

  @Test(arguments: [1, 2, 3, 10, 101, 1_000])
  func matchesNumPy(count: Int) throws {
    var random = SeededRandom(seed: UInt64(count))
    // Times to decision in seconds, some repeated.
    let values = (0..<count).map { _ in random.integer(0...3) == 0 ? 2.5 : random.uniform(0.2, 30) }
    let reference = try ScientificPython.numbers(
      """
      import numpy
      percentages, values = numbers[:\(Self.percentages.count)], numbers[\(Self.percentages.count):]
      for p in percentages:
          emit(numpy.percentile(values, p))
      """, input: Self.percentages + values)
    try #require(reference.count == Self.percentages.count)
    for (p, expected) in zip(Self.percentages, reference) {
      let value = try #require(Percentile.of(values, p))
      #expect(
        abs(value - expected) <= 1e-12 * max(1, abs(expected)), "p\(p) of \(count) values: \(value), NumPy \(expected)")
    }
  }
}
