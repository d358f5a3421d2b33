import EvaluationReport
import JSONCore

/// A made-up `workbench eval` of a liveness flow over 18 sessions: 10 bona
/// fide (8 accepted, 1 rejected at "blink", 1 with no response) and 8
/// attacks, 4 print (p1 accepted) and 4 replay, as summary.json and
/// sessions.jsonl hold it; and a sweep of it over five points.
enum EvaluationRun {
  static let bonaFideIDs = (1...10).map { "bona_fide/b\($0 < 10 ? "0" : "")\($0).jsonl" }
  static let printIDs = (1...4).map { "attack/print/p\($0).jsonl" }
  static let replayIDs = (1...4).map { "attack/replay/r\($0).jsonl" }

  /// The DET curve of eleven thresholds, from APCER 1 and BPCER 0 to APCER 0 and BPCER 1.
  static let det: JSONValue = .array(
    (0...10).map { step in
      let threshold = Double(step) / 10
      let apcer = [1.0, 0.9, 0.6, 0.4, 0.2, 0.1, 0.05, 0.02, 0.01, 0.004, 0][step]
      let bpcer = [0.0, 0.001, 0.01, 0.03, 0.08, 0.12, 0.3, 0.4, 0.5, 0.7, 1.0][step]
      return ["threshold": .number(threshold), "apcer_max": .number(apcer), "bpcer": .number(bpcer)]
    })

  /// One point's fields, "settings" to "scores", as the brief's example has them.
  static func pointFields(settings: JSONValue = ["liveness.blink_threshold": 0.3], scores: Bool = true) -> JSONObject {
    var fields = object([
      "settings": settings,
      "counts": [
        "sessions": 18,
        "bona_fide": ["total": 10, "accepted": 8, "rejected": 1, "none": 1],
        "attack": ["total": 8, "accepted": 1, "rejected": 7, "none": 0],
        "species": [
          "print": ["total": 4, "accepted": 1, "rejected": 3, "none": 0],
          "replay": ["total": 4, "accepted": 0, "rejected": 4, "none": 0],
        ],
      ],
      "bpcer": 0.111111, "bpcer_ci": [0.002809, 0.482497],
      "apcer": ["print": 0.25, "replay": 0.0],
      "apcer_ci": ["print": [0.006309, 0.80588], "replay": [0.0, 0.602353]],
      "apcer_max": 0.25, "apcer_max_species": "print", "apcer_max_ci": [0.006309, 0.80588],
      "apnrr": 0.0, "apnrr_ci": [0.0, 0.369416], "bpnrr": 0.1, "bpnrr_ci": [0.002529, 0.445016],
      "acer": 0.180556, "acer_note": "not an ISO/IEC 30107-3 measure",
      "time_to_decision": ["bona_fide": ["median": 3.1, "p95": 5.2], "attack": ["median": 8.0, "p95": 10.0]],
      "rejected_bona_fide": [["step": "blink", "reason": "step_timeout", "count": 1]],
      "accepted_attacks": ["attack/print/p1.jsonl"],
    ])
    if scores {
      fields["scores"] = [
        "det": det, "eer": 0.12, "eer_threshold": 0.4,
        "bpcer_at_apcer": ["0.05": ["bpcer": 0.3, "threshold": 0.6], "0.01": ["bpcer": 0.5, "threshold": 0.8]],
        "apcer_at_bpcer": ["0.05": ["apcer_max": 0.2, "threshold": 0.35]],
      ]
    }
    return fields
  }

  static var header: JSONObject {
    object([
      "workbench_eval": 1, "flow": "liveness", "score": "face.blink_left:max",
      "no_response_reasons": ["end_of_input"],
    ])
  }

  /// summary.json without a sweep.
  static func summary(scores: Bool = true) -> JSONObject {
    var summary = header
    if !scores { summary["score"] = .null }
    for (key, value) in pointFields(scores: scores) { summary[key] = value }
    return summary
  }

  /// The records of sessions.jsonl at one point: p1 accepted (at
  /// `acceptedPrint`), b09 rejected at "blink", b10 with no response.
  static func sessions(settings: JSONValue = ["liveness.blink_threshold": 0.3], acceptedPrint: Int = 1)
    -> [JSONObject]
  {
    var records: [JSONObject] = []
    for (index, id) in bonaFideIDs.enumerated() {
      var record = object([
        "id": .string(id), "input": .string("corpus/" + id), "label": "bona_fide",
        "subject": .string("s\(index % 3)"), "settings": settings,
      ])
      switch index {
      case 8:
        record["decision"] = "rejected"
        record["reason"] = "step_timeout"
        record["code"] = 3
        record["failed_step"] = "blink"
      case 9:
        record["decision"] = "none"
        record["reason"] = "end_of_input"
        record["code"] = 3
      default:
        record["decision"] = "accepted"
        record["reason"] = "passed"
        record["code"] = 0
        record["decided_at"] = .number(2.5 + Double(index) / 10)
      }
      record["score"] = .number(Double(90 - 2 * index) / 100)
      records.append(record)
    }
    for (species, ids) in [("print", printIDs), ("replay", replayIDs)] {
      for (index, id) in ids.enumerated() {
        let accepted = species == "print" && index + 1 == acceptedPrint
        records.append(
          object([
            "id": .string(id), "input": .string("corpus/" + id), "label": "attack", "species": .string(species),
            "settings": settings, "decision": accepted ? "accepted" : "rejected",
            "reason": accepted ? "passed" : "blink_missing", "code": accepted ? 0 : 3,
            "failed_step": accepted ? nil : "blink", "decided_at": 8.0, "score": .number(Double(20 + 5 * index) / 100),
          ]))
      }
    }
    return records
  }

  /// The sweep's points: (threshold, timeout, APCER (max), BPCER, the print attack accepted).
  static let sweepPoints: [(threshold: Double, timeout: Int64, apcer: Double, bpcer: Double, acceptedPrint: Int)] = [
    (0.2, 5, 0.5, 0.0, 1), (0.3, 5, 0.25, 0.111111, 1), (0.4, 5, 0.25, 0.3, 2), (0.5, 5, 0.0, 0.4, 0),
    (0.3, 8, 0.125, 0.2, 3),
  ]

  static func sweepSettings(_ index: Int) -> JSONValue {
    let point = sweepPoints[index]
    return ["liveness.blink_threshold": .number(point.threshold), "liveness.timeout": .integer(point.timeout)]
  }

  /// summary.json with a sweep: front 0, 1, 4 and 3; point 2 is behind it.
  static func sweepSummary(chosen: Int? = 4, target: Double? = 0.15, scores: Bool = true, points: Int = 5)
    -> JSONObject
  {
    var summary = header
    summary["sweep"] = ["keys": ["liveness.blink_threshold", "liveness.timeout"]]
    summary["points"] = .array(
      (0..<points).map { index in
        var fields = pointFields(settings: sweepSettings(index), scores: scores)
        fields["apcer_max"] = .number(sweepPoints[index].apcer)
        fields["bpcer"] = .number(sweepPoints[index].bpcer)
        return .object(fields)
      })
    summary["front"] = .array([0, 1, 4, 3].filter { $0 < points }.map { .integer(Int64($0)) })
    if let target {
      summary["target_apcer"] = .number(target)
      summary["chosen"] = chosen.map { .integer(Int64($0)) } ?? .null
    }
    return summary
  }

  /// Every point's records, point by point.
  static func sweepSessions(points: Int = 5) -> [JSONObject] {
    (0..<points).flatMap { sessions(settings: sweepSettings($0), acceptedPrint: sweepPoints[$0].acceptedPrint) }
  }
}

/// A JSON object written as a literal.
func object(_ value: JSONValue) -> JSONObject { value.objectValue ?? JSONObject() }
