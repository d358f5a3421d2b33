/// The value at `fraction` of `values` (0.5 the median, 0.95 the 95th
/// percentile): the nearest rank, no interpolation. `ifEmpty` when there is
/// no value.
func percentile(_ values: [Double], _ fraction: Double, ifEmpty: Double = .nan) -> Double {
  guard !values.isEmpty else { return ifEmpty }
  let sorted = values.sorted()
  return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
}

/// The middle of `values`, the mean of the two middle ones for an even
/// count; 0 when there is none.
func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  guard !sorted.isEmpty else { return 0 }
  return sorted.count % 2 == 1
    ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}
