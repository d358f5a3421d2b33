import Foundation

/// The regularized incomplete beta function I_x(a, b) and its inverse in x: the
/// cumulative distribution of Beta(a, b), which Clopper–Pearson intervals are made of.
enum IncompleteBeta {
  /// I_x(a, b) for a, b > 0, by the continued fraction of Numerical Recipes
  /// (§6.4) evaluated with the modified Lentz method.
  static func regularized(_ x: Double, a: Double, b: Double) -> Double {
    if x <= 0 { return 0 }
    if x >= 1 { return 1 }
    // x^a (1-x)^b / B(a, b), in logarithms: for the n of a corpus the powers
    // themselves underflow long before their ratio does.
    let logFront = a * log(x) + b * log1p(-x) - logBeta(a, b)
    // The fraction converges quickly only left of the mean; right of it the
    // symmetry I_x(a, b) = 1 - I_{1-x}(b, a) brings x back there.
    if x < (a + 1) / (a + b + 2) {
      return exp(logFront) * continuedFraction(x, a: a, b: b) / a
    }
    return 1 - exp(logFront) * continuedFraction(1 - x, a: b, b: a) / b
  }

  /// The x in [0, 1] with I_x(a, b) = p, by bisection: I is increasing in x,
  /// so halving the bracket can never leave the root, and halving until the
  /// midpoint is one of the ends leaves the root to the last bit. A few
  /// hundred evaluations at most, which is nothing beside reading a corpus.
  static func inverse(_ p: Double, a: Double, b: Double) -> Double {
    if p <= 0 { return 0 }
    if p >= 1 { return 1 }
    var low = 0.0
    var high = 1.0
    // 1100 halvings reach the smallest subnormal from 1; the loop ends long before.
    for _ in 0..<1100 {
      let middle = low + (high - low) / 2
      if middle <= low || middle >= high { break }
      if regularized(middle, a: a, b: b) < p { low = middle } else { high = middle }
    }
    return low + (high - low) / 2
  }

  /// ln B(a, b). For a + b up to a few hundred thousand the three terms are
  /// about 10^6 and their sum loses about 10^-10 of absolute precision, which
  /// moves the quantiles by far less than 10^-9.
  static func logBeta(_ a: Double, _ b: Double) -> Double {
    lgamma(a) + lgamma(b) - lgamma(a + b)
  }

  /// The continued fraction of I_x(a, b) (without its front factor), for
  /// x < (a + 1) / (a + b + 2), where it needs about √max(a, b) terms.
  private static func continuedFraction(_ x: Double, a: Double, b: Double) -> Double {
    // Lentz's method replaces a zero denominator by a tiny number instead of dividing by it.
    let tiny = 1e-300
    func guarded(_ value: Double) -> Double { abs(value) < tiny ? tiny : value }
    let sum = a + b
    var c = 1.0
    var d = 1 / guarded(1 - sum * x / (a + 1))
    var fraction = d
    // Far more terms than convergence needs for any a, b up to 10^7; the cap only stops a NaN loop.
    for m in 1...100_000 {
      let m = Double(m)
      let even = m * (b - m) * x / ((a - 1 + 2 * m) * (a + 2 * m))
      d = 1 / guarded(1 + even * d)
      c = guarded(1 + even / c)
      fraction *= d * c
      let odd = -(a + m) * (sum + m) * x / ((a + 2 * m) * (a + 1 + 2 * m))
      d = 1 / guarded(1 + odd * d)
      c = guarded(1 + odd / c)
      let step = d * c
      fraction *= step
      if abs(step - 1) <= 2 * Double.ulpOfOne { break }
    }
    return fraction
  }
}
