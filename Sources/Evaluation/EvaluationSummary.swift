import JSONCore
import PADMetrics

/// What the summary says besides the rates: the same for every shard of a run.
struct SummaryHeader: Sendable {
  /// `score` when the sessions' scores are the flow's own (wb.flow's `score`).
  static let flowScore = "flow"

  var flow: String
  /// `FIELD:aggregate` of --score, `flow`, or nil without scores.
  var score: String?
  var noResponseReasons: [String]
  var sweepKeys: [String]
  var targetAPCER: Double?
  var pointSettings: [JSONObject]

  var jsonValue: JSONValue {
    var object = JSONObject([
      ("flow", .string(flow)), ("score", score.map(JSONValue.string) ?? .null),
      ("no_response_reasons", .array(noResponseReasons.map(JSONValue.string))),
      ("sweep_keys", .array(sweepKeys.map(JSONValue.string))),
      ("points", .array(pointSettings.map(JSONValue.object))),
    ])
    object["target_apcer"] = targetAPCER.map(JSONValue.number) ?? .null
    return .object(object)
  }

  init(
    flow: String, score: String?, noResponseReasons: [String], sweepKeys: [String], targetAPCER: Double?,
    pointSettings: [JSONObject]
  ) {
    self.flow = flow
    self.score = score
    self.noResponseReasons = noResponseReasons
    self.sweepKeys = sweepKeys
    self.targetAPCER = targetAPCER
    self.pointSettings = pointSettings
  }

  init?(_ value: JSONValue) {
    guard let object = value.objectValue, let flow = object["flow"]?.stringValue,
      let points = object["points"]?.arrayValue?.compactMap(\.objectValue)
    else { return nil }
    self.init(
      flow: flow, score: object["score"]?.stringValue,
      noResponseReasons: object["no_response_reasons"]?.arrayValue?.compactMap(\.stringValue) ?? [],
      sweepKeys: object["sweep_keys"]?.arrayValue?.compactMap(\.stringValue) ?? [],
      targetAPCER: object["target_apcer"]?.doubleValue, pointSettings: points)
  }
}

/// `summary.json`: ISO/IEC 30107-3's rates per settings point with their
/// 95% Clopper–Pearson intervals, from the sessions' records alone, so that
/// the same records give the same bytes. docs/eval.md.
enum EvaluationSummary {
  static let version: Int64 = 1

  static func make(_ header: SummaryHeader, records: [SessionRecord]) -> JSONValue {
    var byPoint = [[SessionRecord]](repeating: [], count: header.pointSettings.count)
    let index = Dictionary(
      header.pointSettings.enumerated().map { (JSONValue.object($0.element).jsonText, $0.offset) },
      uniquingKeysWith: { first, _ in first })
    for record in records {
      guard let position = index[JSONValue.object(record.settings).jsonText] else { continue }
      byPoint[position].append(record)
    }
    let points = zip(header.pointSettings, byPoint).map { point($0, $1, scored: header.score != nil) }
    var summary = JSONObject([
      ("workbench_eval", .integer(version)), ("flow", .string(header.flow)),
      ("score", header.score.map(JSONValue.string) ?? .null),
      ("no_response_reasons", .array(header.noResponseReasons.map(JSONValue.string))),
    ])
    let rates = points.map { (apcer: $0["apcer_max"]?.doubleValue, bpcer: $0["bpcer"]?.doubleValue) }
    let chosen = header.targetAPCER.map { target in choose(rates, target: target) }
    if header.sweepKeys.isEmpty, let only = points.first {
      for (key, value) in only { summary[key] = value }
    } else {
      summary["sweep"] = .object(JSONObject([("keys", .array(header.sweepKeys.map(JSONValue.string)))]))
      summary["points"] = .array(points.map(JSONValue.object))
      let complete = rates.enumerated().compactMap { item -> (Int, Double, Double)? in
        guard let apcer = item.element.apcer, let bpcer = item.element.bpcer else { return nil }
        return (item.offset, apcer, bpcer)
      }
      let front = ParetoFront.indices(points: complete.map { (apcer: $0.1, bpcer: $0.2) }).map { complete[$0].0 }
      summary["front"] = .array(front.map { .integer(Int64($0)) })
    }
    if let target = header.targetAPCER {
      summary["target_apcer"] = .number(target)
      summary["chosen"] = chosen.flatMap { $0 }.map { .integer(Int64($0)) } ?? .null
    }
    return .object(summary)
  }

  /// The point with the lowest BPCER whose APCER (max) is at most `target`;
  /// ties go to the lower APCER, then to the earlier point.
  static func choose(_ rates: [(apcer: Double?, bpcer: Double?)], target: Double) -> Int? {
    var best: (index: Int, apcer: Double, bpcer: Double)?
    for (index, rate) in rates.enumerated() {
      guard let apcer = rate.apcer, let bpcer = rate.bpcer, apcer <= target + 1e-12 else { continue }
      if let current = best, (current.bpcer, current.apcer) <= (bpcer, apcer) { continue }
      best = (index, apcer, bpcer)
    }
    return best?.index
  }

  /// The rates of one settings point.
  static func point(_ settings: JSONObject, _ records: [SessionRecord], scored: Bool) -> JSONObject {
    let bonaFide = records.filter { $0.label == .bonaFide }
    let attacks = records.filter { $0.label == .attack }
    let species = Array(Set(attacks.compactMap(\.species))).sorted {
      Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8))
    }
    var object = JSONObject([("settings", .object(settings))])
    var speciesCounts = JSONObject()
    for kind in species { speciesCounts[kind] = counts(attacks.filter { $0.species == kind }) }
    object["counts"] = .object(
      JSONObject([
        ("sessions", .integer(Int64(records.count))), ("bona_fide", counts(bonaFide)), ("attack", counts(attacks)),
        ("species", .object(speciesCounts)),
      ]))
    // BPCER: bona fide rejected among bona fide with a decision.
    let bpcer = errorRate(
      bonaFide.filter { $0.decision == .rejected }.count, of: bonaFide.filter { $0.decision != .none }.count)
    object["bpcer"] = bpcer.rate
    object["bpcer_ci"] = bpcer.interval
    var apcer = JSONObject()
    var apcerIntervals = JSONObject()
    var worst: (species: String, rate: Double, interval: JSONValue)?
    for kind in species {
      let decided = attacks.filter { $0.species == kind && $0.decision != .none }
      let rate = errorRate(decided.filter { $0.decision == .accepted }.count, of: decided.count)
      apcer[kind] = rate.rate
      apcerIntervals[kind] = rate.interval
      if let value = rate.rate.doubleValue, worst == nil || value > worst!.rate {
        worst = (kind, value, rate.interval)
      }
    }
    object["apcer"] = .object(apcer)
    object["apcer_ci"] = .object(apcerIntervals)
    object["apcer_max"] = worst.map { .number($0.rate) } ?? .null
    object["apcer_max_species"] = worst.map { .string($0.species) } ?? .null
    object["apcer_max_ci"] = worst?.interval ?? .null
    let apnrr = errorRate(attacks.filter { $0.decision == .none }.count, of: attacks.count)
    object["apnrr"] = apnrr.rate
    object["apnrr_ci"] = apnrr.interval
    let bpnrr = errorRate(bonaFide.filter { $0.decision == .none }.count, of: bonaFide.count)
    object["bpnrr"] = bpnrr.rate
    object["bpnrr_ci"] = bpnrr.interval
    if let worst, let bpcerValue = bpcer.rate.doubleValue {
      object["acer"] = .number(((worst.rate + bpcerValue) / 2).roundedToMicroseconds)
    } else {
      object["acer"] = .null
    }
    object["acer_note"] = .string("not an ISO/IEC 30107-3 measure")
    object["time_to_decision"] = .object(
      JSONObject([("bona_fide", timeToDecision(bonaFide)), ("attack", timeToDecision(attacks))]))
    object["rejected_bona_fide"] = .array(attribution(bonaFide.filter { $0.decision == .rejected }))
    object["accepted_attacks"] = .array(
      attacks.filter { $0.decision == .accepted }.map(\.id).sorted {
        Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8))
      }.map(JSONValue.string))
    if scored { object["scores"] = scores(records) }
    return object
  }

  static func counts(_ records: [SessionRecord]) -> JSONValue {
    .object(
      JSONObject([
        ("total", .integer(Int64(records.count))),
        ("accepted", .integer(Int64(records.filter { $0.decision == .accepted }.count))),
        ("rejected", .integer(Int64(records.filter { $0.decision == .rejected }.count))),
        ("none", .integer(Int64(records.filter { $0.decision == .none }.count))),
      ]))
  }

  /// x of n as a rate and its interval; both null when n is 0.
  static func errorRate(_ errors: Int, of trials: Int) -> (rate: JSONValue, interval: JSONValue) {
    guard trials > 0, let interval = ClopperPearson.interval(successes: errors, trials: trials) else {
      return (.null, .null)
    }
    return (
      .number((Double(errors) / Double(trials)).roundedToMicroseconds),
      .array([.number(interval.low.roundedToMicroseconds), .number(interval.high.roundedToMicroseconds)])
    )
  }

  static func timeToDecision(_ records: [SessionRecord]) -> JSONValue {
    let times = records.compactMap { $0.decision == .none ? nil : $0.decidedAt }
    guard let median = Percentile.of(times, 50), let p95 = Percentile.of(times, 95) else { return .null }
    return .object(
      JSONObject([
        ("count", .integer(Int64(times.count))), ("median", .number(median.roundedToMicroseconds)),
        ("p95", .number(p95.roundedToMicroseconds)),
      ]))
  }

  /// Rejected bona fide sessions by the step that failed and its reason,
  /// most first: what a flow author fixes next.
  static func attribution(_ rejected: [SessionRecord]) -> [JSONValue] {
    var counts: [String: (step: String?, reason: String, count: Int)] = [:]
    for record in rejected {
      let key = (record.failedStep ?? "") + "\u{1F}" + record.reason
      counts[key, default: (record.failedStep, record.reason, 0)].count += 1
    }
    return counts.values.sorted { a, b in
      if a.count != b.count { return a.count > b.count }
      return ((a.step ?? ""), a.reason) < ((b.step ?? ""), b.reason)
    }.map {
      .object(
        JSONObject([
          ("step", $0.step.map(JSONValue.string) ?? .null), ("reason", .string($0.reason)),
          ("count", .integer(Int64($0.count))),
        ]))
    }
  }

  /// The score-based measures: the DET curve, EER and the operating points.
  static func scores(_ records: [SessionRecord]) -> JSONValue {
    var attacks: [String: [Double]] = [:]
    for record in records where record.label == .attack && record.decision != .none {
      if let score = record.score { attacks[record.species ?? "", default: []].append(score) }
    }
    let set = ScoreSet(
      bonaFide: records.filter { $0.label == .bonaFide && $0.decision != .none }.compactMap(\.score), attacks: attacks)
    var object = JSONObject()
    object["det"] = .array(
      set.detCurve().map {
        .object(
          JSONObject([
            ("threshold", .number($0.threshold.roundedToMicroseconds)),
            ("apcer_max", .number($0.apcerMax.roundedToMicroseconds)),
            ("bpcer", .number($0.bpcer.roundedToMicroseconds)),
          ]))
      })
    let eer = set.equalErrorRate()
    object["eer"] = eer.map { .number($0.rate.roundedToMicroseconds) } ?? .null
    object["eer_threshold"] = eer.map { .number($0.threshold.roundedToMicroseconds) } ?? .null
    var bpcerAt = JSONObject()
    for target in [0.05, 0.01] {
      bpcerAt[target == 0.05 ? "0.05" : "0.01"] =
        set.bpcer(atAPCER: target).map {
          .object(
            JSONObject([
              ("bpcer", .number($0.bpcer.roundedToMicroseconds)),
              ("threshold", .number($0.threshold.roundedToMicroseconds)),
            ]))
        } ?? .null
    }
    object["bpcer_at_apcer"] = .object(bpcerAt)
    object["apcer_at_bpcer"] = .object(
      JSONObject([
        (
          "0.05",
          set.apcer(atBPCER: 0.05).map {
            .object(
              JSONObject([
                ("apcer_max", .number($0.apcer.roundedToMicroseconds)),
                ("threshold", .number($0.threshold.roundedToMicroseconds)),
              ]))
          } ?? .null
        )
      ]))
    return .object(object)
  }
}
