/// The value at `fraction` of `values` (0.5 the median, 0.95 the 95th
/// percentile): the nearest rank, no interpolation. `ifEmpty` when there is
/// no value.
func percentile(_ values: [Double], _ fraction: Double, ifEmpty: Double = .nan) -> Double {
  guard !values.isEmpty else { return ifEmpty }
  let sorted = values.sorted()
  return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
}
