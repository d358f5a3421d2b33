import JSONCore
import SessionReport

/// Presentations of one kind (bona fide, attack, one species) counted by the
/// flow's decision, as `counts` gives them.
struct Tally: Equatable {
  var total = 0
  var accepted = 0
  var rejected = 0
  var none = 0

  init(_ value: JSONValue?) {
    func count(_ key: String) -> Int { value?[key]?.integerValue.map { Int(clamping: $0) } ?? 0 }
    total = count("total")
    accepted = count("accepted")
    rejected = count("rejected")
    none = count("none")
  }

  /// The presentations the flow decided on: the denominator of APCER and
  /// BPCER (those with no response count in APNRR and BPNRR instead).
  var decided: Int { accepted + rejected }
}

/// A rate as the page shows it: the value summary.json gives (nil when its
/// denominator is 0), its interval, and the counts it comes from.
struct Rate {
  var value: Double?
  var interval: (low: Double, high: Double)?
  var count: Int
  var of: Int

  /// A `[low, high]` pair; nil for null or anything else.
  static func interval(_ value: JSONValue?) -> (low: Double, high: Double)? {
    guard let pair = value?.arrayValue, pair.count == 2, let low = pair[0].doubleValue,
      let high = pair[1].doubleValue
    else { return nil }
    return (low, high)
  }
}

/// One point of the evaluation (the whole summary without a sweep): its
/// settings and the measures the flow reached with them.
struct EvaluationPoint {
  let index: Int
  let fields: JSONObject
  let bonaFide: Tally
  let attack: Tally
  /// Every species of attack: those counted, then any other the rates name.
  let species: [(name: String, tally: Tally)]

  init(index: Int, fields: JSONObject) {
    self.index = index
    self.fields = fields
    let counts = fields["counts"]
    bonaFide = Tally(counts?["bona_fide"])
    attack = Tally(counts?["attack"])
    var species = (counts?["species"]?.objectValue ?? JSONObject()).map { (name: $0.key, tally: Tally($0.value)) }
    for key in fields["apcer"]?.objectValue?.keys ?? [] where !species.contains(where: { $0.name == key }) {
      species.append((key, Tally(nil)))
    }
    self.species = species
  }

  var settings: JSONObject { fields["settings"]?.objectValue ?? JSONObject() }

  var sessionCount: Int? { fields["counts"]?["sessions"]?.integerValue.map { Int(clamping: $0) } }

  var bpcer: Rate {
    Rate(
      value: fields["bpcer"]?.doubleValue, interval: Rate.interval(fields["bpcer_ci"]), count: bonaFide.rejected,
      of: bonaFide.decided)
  }

  func apcer(species name: String) -> Rate {
    let tally = species.first { $0.name == name }?.tally ?? Tally(nil)
    return Rate(
      value: fields["apcer"]?[name]?.doubleValue, interval: Rate.interval(fields["apcer_ci"]?[name]),
      count: tally.accepted, of: tally.decided)
  }

  /// The species whose APCER is the reported one (the highest).
  var apcerMaxSpecies: String? { fields["apcer_max_species"]?.stringValue }

  var apcerMax: Rate {
    let tally = species.first { $0.name == apcerMaxSpecies }?.tally ?? Tally(nil)
    return Rate(
      value: fields["apcer_max"]?.doubleValue, interval: Rate.interval(fields["apcer_max_ci"]),
      count: tally.accepted, of: tally.decided)
  }

  var apnrr: Rate {
    Rate(
      value: fields["apnrr"]?.doubleValue, interval: Rate.interval(fields["apnrr_ci"]), count: attack.none,
      of: attack.total)
  }

  var bpnrr: Rate {
    Rate(
      value: fields["bpnrr"]?.doubleValue, interval: Rate.interval(fields["bpnrr_ci"]), count: bonaFide.none,
      of: bonaFide.total)
  }

  var acer: Double? { fields["acer"]?.doubleValue }

  /// The score's DET curve and operating points; nil when the run had no score.
  var scores: JSONObject? { fields["scores"]?.objectValue }
}

/// What summary.json says, with or without a sweep.
struct Evaluation {
  let summary: JSONObject
  let isSweep: Bool
  /// Every point; one, the summary itself, without a sweep.
  let points: [EvaluationPoint]
  /// The settings the sweep varies.
  let sweepKeys: [String]
  /// The points on the Pareto front of APCER (max) and BPCER.
  let front: Set<Int>
  /// The point that meets the target APCER with the lowest BPCER, if any.
  let chosen: Int?
  let targetAPCER: Double?

  init(summary: JSONObject) {
    self.summary = summary
    if case .array(let list)? = summary["points"] {
      isSweep = true
      points = list.enumerated().map {
        EvaluationPoint(index: $0.offset, fields: $0.element.objectValue ?? JSONObject())
      }
    } else {
      isSweep = false
      points = [EvaluationPoint(index: 0, fields: summary)]
    }
    sweepKeys = summary["sweep"]?["keys"]?.arrayValue?.compactMap(\.stringValue) ?? []
    let indices = points.indices
    front = Set((summary["front"]?.arrayValue ?? []).compactMap { $0.integerValue.map { Int(clamping: $0) } })
      .filter { indices.contains($0) }
    chosen = summary["chosen"]?.integerValue.map { Int(clamping: $0) }.flatMap { indices.contains($0) ? $0 : nil }
    targetAPCER = summary["target_apcer"]?.doubleValue
  }

  /// The point the page opens on: the chosen one, else the first.
  var shownPoint: Int { chosen ?? 0 }

  var flow: String? { summary["flow"]?.stringValue }
  var score: String? { summary["score"]?.stringValue }

  /// The settings a point is told by: the swept ones, or all without a sweep.
  func settingsText(_ point: EvaluationPoint) -> String {
    let settings = point.settings
    let keys = sweepKeys.isEmpty ? settings.keys : sweepKeys
    return keys.map { key in key + " = " + (settings[key].map(ReportFormat.cell) ?? "–") }.joined(separator: ", ")
  }

  /// "point 3 (liveness.blink_threshold = 0.3)", or "" without a sweep.
  func pointName(_ point: EvaluationPoint) -> String {
    guard isSweep else { return "" }
    let settings = settingsText(point)
    return "point \(point.index)" + (settings.isEmpty ? "" : " (\(settings))")
  }
}

/// Rates as percentages, with the digits a reader needs to tell them apart.
enum Percent {
  /// "11.1%", "0.28%", or "–" for a rate with no denominator.
  static func text(_ rate: Double?) -> String {
    guard let rate, rate.isFinite else { return "–" }
    let percent = rate * 100
    return ReportFormat.fixed(percent, percent != 0 && abs(percent) < 1 ? 2 : 1) + "%"
  }

  /// "0.28% – 48.2%", or "–".
  static func interval(_ interval: (low: Double, high: Double)?) -> String {
    guard let interval else { return "–" }
    return text(interval.low) + " – " + text(interval.high)
  }

  /// A tick label on a percent axis with `decimals` decimals of the rate.
  static func tick(_ rate: Double, decimals: Int) -> String {
    ReportFormat.fixed(rate * 100, max(0, decimals - 2)) + "%"
  }
}
