import Foundation

/// The standard normal deviate of a probability (the probit, the inverse of
/// the normal distribution function): the scale of both axes of a DET plot,
/// on which the error rates of normally distributed scores fall on a line.
enum NormalDeviate {
  /// Acklam's rational approximation, good to about 1e-9 relative: far
  /// finer than a pixel. `p` must lie strictly between 0 and 1.
  static func of(_ p: Double) -> Double {
    let a = [
      -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02,
      -3.066479806614716e+01, 2.506628277459239e+00,
    ]
    let b = [
      -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01,
      -1.328068155288572e+01,
    ]
    let c = [
      -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00,
      4.374664141464968e+00, 2.938163982698783e+00,
    ]
    let d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
    // The tails, where the central form loses precision.
    func tail(_ q: Double) -> Double {
      let numerator = ((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]
      let denominator = (((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1
      return numerator / denominator
    }
    let tailWidth = 0.02425
    if p < tailWidth { return tail((-2 * log(p)).squareRoot()) }
    if p > 1 - tailWidth { return -tail((-2 * log(1 - p)).squareRoot()) }
    let q = p - 0.5
    let r = q * q
    let numerator = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
    let denominator = ((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1
    return numerator / denominator
  }
}
