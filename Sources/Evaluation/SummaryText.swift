import JSONCore

/// The summary as a few lines for the terminal: the rates with their
/// intervals and counts, per settings point (the chosen one marked).
public enum SummaryText {
  public static func lines(_ summary: JSONValue) -> [String] {
    guard let object = summary.objectValue else { return [] }
    if let points = object["points"]?.arrayValue {
      let chosen = object["chosen"]?.integerValue.map(Int.init)
      let front = Set(object["front"]?.arrayValue?.compactMap { $0.integerValue.map(Int.init) } ?? [])
      var lines = ["point  APCER(max)  BPCER    APNRR    BPNRR    settings"]
      for (index, point) in points.enumerated() {
        let settings =
          point["settings"]?.objectValue.map { object in
            object.entries.map { "\($0.key)=\($0.value.jsonText)" }.joined(separator: " ")
          } ?? ""
        let mark = index == chosen ? "*" : front.contains(index) ? "+" : " "
        lines.append(
          "\(pad("\(index)\(mark)", 6)) \(pad(percent(point["apcer_max"]), 11)) \(pad(percent(point["bpcer"]), 8)) "
            + "\(pad(percent(point["apnrr"]), 8)) \(pad(percent(point["bpnrr"]), 8)) \(settings)")
      }
      lines.append("(+ on the front of APCER against BPCER\(chosen == nil ? "" : "; * chosen"))")
      if object["target_apcer"] != nil, chosen == nil {
        lines.append("no point has an APCER (max) at or below the target \(percent(object["target_apcer"]))")
      }
      if let chosen, chosen < points.count { lines += ["", "chosen point \(chosen):"] + rates(points[chosen]) }
      return lines
    }
    return rates(summary)
  }

  static func rates(_ point: JSONValue) -> [String] {
    var lines: [String] = []
    let counts = point["counts"]
    func row(_ name: String, _ key: String, _ interval: JSONValue?, errors: JSONValue?, of trials: JSONValue?) {
      var line = "\(pad(name, 22)) \(pad(percent(point[key]), 8))"
      if let low = interval?.arrayValue?.first, let high = interval?.arrayValue?.last {
        line += " [\(percent(low)), \(percent(high))]"
      }
      if let errors = errors?.integerValue, let trials = trials?.integerValue { line += "  \(errors) of \(trials)" }
      lines.append(line)
    }
    let bonaFide = counts?["bona_fide"]
    let bonaFideDecided = (bonaFide?["accepted"]?.integerValue ?? 0) + (bonaFide?["rejected"]?.integerValue ?? 0)
    row("BPCER", "bpcer", point["bpcer_ci"], errors: bonaFide?["rejected"], of: .integer(bonaFideDecided))
    for (species, rate) in point["apcer"]?.objectValue?.entries ?? [] {
      let speciesCounts = counts?["species"]?[species]
      let decided = (speciesCounts?["accepted"]?.integerValue ?? 0) + (speciesCounts?["rejected"]?.integerValue ?? 0)
      var line = "\(pad("APCER \(species)", 22)) \(pad(percent(rate), 8))"
      if let interval = point["apcer_ci"]?[species]?.arrayValue, interval.count == 2 {
        line += " [\(percent(interval[0])), \(percent(interval[1]))]"
      }
      line += "  \(speciesCounts?["accepted"]?.integerValue ?? 0) of \(decided)"
      lines.append(line)
    }
    let worst = point["apcer_max_species"]?.stringValue.map { " (\($0))" } ?? ""
    row("APCER (max)" + worst, "apcer_max", point["apcer_max_ci"], errors: nil, of: nil)
    row("APNRR", "apnrr", point["apnrr_ci"], errors: counts?["attack"]?["none"], of: counts?["attack"]?["total"])
    row("BPNRR", "bpnrr", point["bpnrr_ci"], errors: bonaFide?["none"], of: bonaFide?["total"])
    if let scores = point["scores"] {
      lines.append("\(pad("EER", 22)) \(percent(scores["eer"]))")
      lines.append("\(pad("BPCER20 (APCER 5%)", 22)) \(percent(scores["bpcer_at_apcer"]?["0.05"]?["bpcer"]))")
      lines.append("\(pad("BPCER100 (APCER 1%)", 22)) \(percent(scores["bpcer_at_apcer"]?["0.01"]?["bpcer"]))")
    }
    return lines
  }

  static func percent(_ value: JSONValue?) -> String {
    guard let number = value?.doubleValue else { return "–" }
    let tenths = (number * 1000).rounded() / 10
    return "\(tenths)%"
  }

  static func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
  }
}
