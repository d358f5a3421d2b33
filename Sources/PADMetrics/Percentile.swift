/// Percentiles of a sample (the median and p95 of time to decision), computed
/// as NumPy's `percentile` computes them by default (`method="linear"`, type 7
/// of Hyndman and Fan), so that a number here and one from a notebook agree.
public enum Percentile {
  /// The `p`-th percentile (p from 0 to 100) of `values`: the sorted values
  /// interpolated linearly at position (count − 1) · p / 100. Nil when
  /// `values` is empty or holds a NaN, or when `p` is not in 0...100.
  public static func of(_ values: [Double], _ p: Double) -> Double? {
    guard !values.isEmpty, (0...100).contains(p), !values.contains(where: \.isNaN) else { return nil }
    let sorted = values.sorted()
    // NumPy divides by 100 first and then multiplies; the same order rounds the same way.
    let position = Double(sorted.count - 1) * (p / 100)
    let below = position.rounded(.down)
    let index = Int(below)
    if index >= sorted.count - 1 { return sorted[sorted.count - 1] }
    let weight = position - below
    let low = sorted[index]
    let high = sorted[index + 1]
    // NumPy's lerp: from the nearer end, so that a weight of 1 gives `high` exactly.
    let difference = high - low
    return weight >= 0.5 ? high - difference * (1 - weight) : low + difference * weight
  }
}
