/// Up to `limit` names close to `typed`, closest first: those within a few
/// edits, and those whose last dotted word is the same (a missing prefix).
func closestNames(to typed: String, among names: [String], limit: Int = 3) -> [String] {
  let lowered = typed.lowercased()
  let threshold = max(2, lowered.count / 3)
  let lastWord = lowered.split(separator: ".").last
  let candidates = names.compactMap { name -> (name: String, distance: Int)? in
    let distance = editDistance(lowered, name)
    let sameLastWord = lastWord != nil && name.split(separator: ".").last == lastWord
    return distance <= threshold || sameLastWord ? (name, distance) : nil
  }
  return
    candidates
    .sorted { ($0.distance, $0.name) < ($1.distance, $1.name) }
    .prefix(limit)
    .map(\.name)
}

/// "did you mean 'a'?", "did you mean 'a' or 'b'?", "did you mean 'a', 'b' or 'c'?"
func didYouMean(_ names: [String]) -> String? {
  let quoted = names.map { "'\($0)'" }
  guard let last = quoted.last else { return nil }
  let alternatives =
    quoted.count == 1 ? last : quoted.dropLast().joined(separator: ", ") + " or " + last
  return "did you mean \(alternatives)?"
}

/// Levenshtein distance over Unicode scalars.
func editDistance(_ source: String, _ target: String) -> Int {
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
