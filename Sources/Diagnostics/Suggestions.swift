/// Up to `limit` names close to `typed`, closest first: those within a few
/// edits, and those whose last dotted word is the same (a missing prefix).
public func closestNames(to typed: String, among names: [String], limit: Int = 3) -> [String] {
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
public func didYouMean(_ names: [String]) -> String? {
  let quoted = names.map { "'\($0)'" }
  guard let last = quoted.last else { return nil }
  let alternatives =
    quoted.count == 1 ? last : quoted.dropLast().joined(separator: ", ") + " or " + last
  return "did you mean \(alternatives)?"
}
