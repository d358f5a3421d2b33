/// Levenshtein distance over Unicode scalars: how "did you mean" suggestions
/// find the name a user meant.
public func editDistance(_ source: String, _ target: String) -> Int {
  let source = Array(source.unicodeScalars)
  let target = Array(target.unicodeScalars)
  if source.isEmpty { return target.count }
  var previous = Array(0...target.count)
  var current = previous
  for (sourceIndex, sourceScalar) in source.enumerated() {
    current[0] = sourceIndex + 1
    for (targetIndex, targetScalar) in target.enumerated() {
      let substitution = previous[targetIndex] + (sourceScalar == targetScalar ? 0 : 1)
      current[targetIndex + 1] = min(substitution, previous[targetIndex + 1] + 1, current[targetIndex] + 1)
    }
    swap(&previous, &current)
  }
  return previous[target.count]
}
