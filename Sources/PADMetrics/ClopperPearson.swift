/// The Clopper–Pearson ("exact") confidence interval of a binomial proportion:
/// the interval ISO/IEC 30107-3 evaluations quote around APCER and BPCER. It
/// never undercovers, which matters when errors are few (0 errors in 300
/// attacks still allows an APCER up to about 1.2%).
public enum ClopperPearson {
  /// The two-sided interval of x successes in n trials at `confidence` (0.95 by default):
  /// low = Beta⁻¹(α/2; x, n − x + 1), or 0 when x = 0;
  /// high = Beta⁻¹(1 − α/2; x + 1, n − x), or 1 when x = n; with α = 1 − confidence.
  /// Nil when n is 0 (no trials, no rate), when x is not in 0...n, or when
  /// `confidence` is not strictly between 0 and 1.
  public static func interval(
    successes x: Int, trials n: Int, confidence: Double = 0.95
  ) -> (low: Double, high: Double)? {
    guard n > 0, (0...n).contains(x), confidence > 0, confidence < 1 else { return nil }
    let alpha = 1 - confidence
    let successes = Double(x)
    let failures = Double(n - x)
    let low = x == 0 ? 0 : IncompleteBeta.inverse(alpha / 2, a: successes, b: failures + 1)
    let high = x == n ? 1 : IncompleteBeta.inverse(1 - alpha / 2, a: successes + 1, b: failures)
    return (low, high)
  }
}
