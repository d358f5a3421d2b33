import Foundation
import PADMetrics
import TestSupport
import Testing

@Suite struct ClopperPearsonTests {
  /// Values from published tables of the exact interval (95%), rounded to 7 decimals: within half a unit of the last.
  @Test func matchesPublishedValues() throws {
    let noneInTen = try #require(ClopperPearson.interval(successes: 0, trials: 10))
    #expect(noneInTen.low == 0)
    #expect(abs(noneInTen.high - 0.308_497_1) < 5e-8)
    let oneInTen = try #require(ClopperPearson.interval(successes: 1, trials: 10))
    #expect(abs(oneInTen.low - 0.002_528_6) < 5e-8)
    #expect(abs(oneInTen.high - 0.445_016_1) < 5e-8)
    let fiveInTen = try #require(ClopperPearson.interval(successes: 5, trials: 10))
    #expect(abs(fiveInTen.low - 0.187_086_0) < 5e-8)
    #expect(abs(fiveInTen.high - 0.812_914_0) < 5e-8)
  }

  /// The ends have closed forms: with no successes high = 1 − (α/2)^(1/n), with
  /// all of them low = (α/2)^(1/n).
  @Test(arguments: [1, 7, 300, 100_000])
  func endsMatchTheirClosedForms(trials: Int) throws {
    let none = try #require(ClopperPearson.interval(successes: 0, trials: trials))
    let all = try #require(ClopperPearson.interval(successes: trials, trials: trials))
    let expected = Foundation.pow(0.025, 1 / Double(trials))
    #expect(none.low == 0 && all.high == 1)
    #expect(abs(none.high - (1 - expected)) < 1e-12)
    #expect(abs(all.low - expected) < 1e-12)
  }

  @Test func hasNoIntervalWithoutTrialsOrForImpossibleCounts() {
    #expect(ClopperPearson.interval(successes: 0, trials: 0) == nil)
    #expect(ClopperPearson.interval(successes: 3, trials: 2) == nil)
    #expect(ClopperPearson.interval(successes: -1, trials: 2) == nil)
    #expect(ClopperPearson.interval(successes: 1, trials: 2, confidence: 1) == nil)
    #expect(ClopperPearson.interval(successes: 1, trials: 2, confidence: 0) == nil)
  }

  @Test func anErrorRateIsItsCountsWithTheirInterval() throws {
    let rate = ErrorRate(errors: 1, trials: 10)
    #expect(rate.rate == 0.1)
    let interval = try #require(rate.interval)
    #expect(abs(interval.low - 0.002_528_6) < 5e-8 && abs(interval.high - 0.445_016_1) < 5e-8)
    let wider = try #require(ErrorRate(errors: 1, trials: 10, confidence: 0.99).interval)
    #expect(wider.low < interval.low && wider.high > interval.high)
    #expect(ErrorRate(errors: 0, trials: 0).rate == nil)
    #expect(ErrorRate(errors: 0, trials: 0).interval == nil)
  }
}

/// The same intervals from SciPy's inverse Beta distribution (`scipy.stats.beta.ppf`),
/// over the grid of counts an evaluation meets, from one trial to 10^5.
@Suite(.enabled(if: ScientificPython.runs, Comment(rawValue: ScientificPython.skipReason)))
struct ClopperPearsonSciPyTests {
  static let grid: [(successes: Int, trials: Int)] = {
    var grid: [(Int, Int)] = []
    for trials in [1, 2, 7, 10, 30, 100, 1_000, 12_345, 100_000] {
      let successes = Set([0, 1, 2, trials / 3, trials / 2, trials - 2, trials - 1, trials]).filter {
        (0...trials).contains($0)
      }
      grid += successes.sorted().map { ($0, trials) }
    }
    return grid
  }()

  @Test(arguments: [0.95, 0.99, 0.5])
  func matchesSciPy(confidence: Double) throws {
    var input = [confidence]
    for cell in Self.grid { input += [Double(cell.successes), Double(cell.trials)] }
    let reference = try ScientificPython.numbers(
      """
      from scipy.stats import beta
      alpha = 1 - numbers[0]
      for i in range(1, len(numbers), 2):
          x, n = int(numbers[i]), int(numbers[i + 1])
          emit(0.0 if x == 0 else beta.ppf(alpha / 2, x, n - x + 1))
          emit(1.0 if x == n else beta.ppf(1 - alpha / 2, x + 1, n - x))
      """, input: input)
    try #require(reference.count == 2 * Self.grid.count)
    for (index, cell) in Self.grid.enumerated() {
      let interval = try #require(
        ClopperPearson.interval(successes: cell.successes, trials: cell.trials, confidence: confidence))
      let (low, high) = (reference[2 * index], reference[2 * index + 1])
      #expect(abs(interval.low - low) <= 1e-9, "low of \(cell.successes)/\(cell.trials): \(interval.low), SciPy \(low)")
      #expect(
        abs(interval.high - high) <= 1e-9, "high of \(cell.successes)/\(cell.trials): \(interval.high), SciPy \(high)")
    }
  }
}
