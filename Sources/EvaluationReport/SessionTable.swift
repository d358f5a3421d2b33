import Foundation
import JSONCore
import SessionReport

/// The sessions of the run, one row per session id, with what the flow
/// decided at each point of the sweep (one point without a sweep).
struct SessionTable {
  /// One session at one point, as the table's cells show it.
  struct Outcome {
    var decision: String
    var reason: String
    var failedStep: String
    var decidedAt: String
    var score: String
    var error: String

    init(_ record: JSONObject) {
      func text(_ key: String) -> String { record[key].flatMap { $0 == .null ? nil : ReportFormat.cell($0) } ?? "" }
      decision = text("decision")
      reason = text("reason")
      failedStep = text("failed_step")
      decidedAt = record["decided_at"]?.doubleValue.map { ReportFormat.fixed($0, 3) } ?? ""
      score = record["score"]?.doubleValue.map(Outcome.scoreText) ?? ""
      error = text("error")
    }

    /// A score with at most four decimals, without trailing zeros: enough
    /// to tell sessions apart, short enough to read down a column.
    static func scoreText(_ score: Double) -> String {
      var text = ReportFormat.fixed(score, 4)
      guard text.contains(".") else { return text }
      while text.hasSuffix("0") { text.removeLast() }
      if text.hasSuffix(".") { text.removeLast() }
      return text == "-0" ? "0" : text
    }

    /// The cells the script puts in a row when another point is shown.
    var cells: JSONValue {
      .array([
        .string(decision), .string(reason), .string(failedStep), .string(decidedAt), .string(score), .string(error),
      ])
    }
  }

  struct Row {
    var id: String
    var label: String
    var species: String
    /// By point; nil where the session has no record at that point.
    var outcomes: [Outcome?]
  }

  private(set) var rows: [Row] = []
  /// Records that fit no point of the sweep, or repeat a session at a point.
  private(set) var unplaced = 0
  let pointCount: Int

  init(records: [JSONObject], evaluation: Evaluation) {
    pointCount = max(1, evaluation.points.count)
    // A record belongs to the point whose swept settings it has.
    var pointOfSettings: [String: Int] = [:]
    if evaluation.isSweep {
      for point in evaluation.points {
        let key = SessionTable.settingsKey(point.settings, keys: evaluation.sweepKeys)
        if pointOfSettings[key] == nil { pointOfSettings[key] = point.index }
      }
    }
    var rowOfID: [String: Int] = [:]
    var recordsSeen: [String: Int] = [:]
    for record in records {
      let id = (record["id"] ?? record["input"]).map(ReportFormat.cell) ?? ""
      let seen = recordsSeen[id, default: 0]
      recordsSeen[id] = seen + 1
      var point: Int?
      if !evaluation.isSweep {
        point = 0
      } else if let settings = record["settings"]?.objectValue {
        point = pointOfSettings[SessionTable.settingsKey(settings, keys: evaluation.sweepKeys)]
      } else if seen < pointCount {
        // No settings to tell by: the records of a session come in the order of the points.
        point = seen
      }
      guard let point else {
        unplaced += 1
        continue
      }
      let row: Int
      if let known = rowOfID[id] {
        row = known
      } else {
        row = rows.count
        rowOfID[id] = row
        rows.append(
          Row(
            id: id, label: record["label"]?.stringValue ?? "", species: record["species"]?.stringValue ?? "",
            outcomes: Array(repeating: nil, count: pointCount)))
      }
      guard rows[row].outcomes[point] == nil else {
        unplaced += 1
        continue
      }
      rows[row].outcomes[point] = Outcome(record)
    }
  }

  /// The swept settings' values (every setting without sweep keys), with
  /// numbers in one form so that 1 and 1.0 are the same point.
  static func settingsKey(_ settings: JSONObject, keys: [String]) -> String {
    let keys = keys.isEmpty ? settings.keys : keys
    return keys.map { key -> String in
      guard let value = settings[key] else { return key + "\u{0}-" }
      return key + "\u{0}" + (value.doubleValue.map(ReportFormat.shortest) ?? value.jsonText)
    }.joined(separator: "\u{1}")
  }

  /// The distinct values of a column, in the order they first appear.
  func values(_ column: KeyPath<Row, String>) -> [String] {
    var seen = Set<String>()
    return rows.map { $0[keyPath: column] }.filter { !$0.isEmpty && seen.insert($0).inserted }
  }

  /// The decisions made at any point, accepted, rejected and none first.
  var decisions: [String] {
    var seen = Set<String>()
    var found: [String] = []
    for row in rows {
      for outcome in row.outcomes {
        if let decision = outcome?.decision, !decision.isEmpty, seen.insert(decision).inserted {
          found.append(decision)
        }
      }
    }
    let usual = ["accepted", "rejected", "none"]
    return usual.filter(seen.contains) + found.filter { !usual.contains($0) }
  }

  /// Whether the decision was right for the label: "correct", "wrong" (an
  /// accepted attack or a rejected bona fide), "no-response", or "" when
  /// the label or decision is one the page does not know.
  static func verdict(label: String, decision: String) -> String {
    switch (label, decision) {
    case ("bona_fide", "accepted"), ("attack", "rejected"): return "correct"
    case ("bona_fide", "rejected"), ("attack", "accepted"): return "wrong"
    case (_, "none"): return "no-response"
    default: return ""
    }
  }

  /// The rows with the outcomes at `point`, appended to `html`.
  func appendRows(point: Int, links: [String: String], to html: inout String) {
    for row in rows {
      let outcome = row.outcomes[point]
      let decision = outcome?.decision ?? ""
      html +=
        "<tr data-label=\"\(ReportFormat.escape(row.label))\" data-species=\"\(ReportFormat.escape(row.species))\""
      html += " data-decision=\"\(ReportFormat.escape(decision))\"><td>"
      if let link = links[row.id] {
        html += "<a href=\"\(ReportFormat.escape(link))\">\(ReportFormat.escape(row.id))</a>"
      } else {
        html += ReportFormat.escape(row.id)
      }
      html += "</td><td>\(ReportFormat.escape(row.label.replacingOccurrences(of: "_", with: " ")))</td>"
      html += "<td>\(ReportFormat.escape(row.species))</td>"
      html += "<td class=\"decision \(SessionTable.verdict(label: row.label, decision: decision))\">"
      html += (outcome == nil ? "no record" : ReportFormat.escape(decision)) + "</td>"
      if let error = outcome?.error, !error.isEmpty {
        html += "<td title=\"\(ReportFormat.escape(error))\">"
      } else {
        html += "<td>"
      }
      html += ReportFormat.escape(outcome?.reason ?? "") + "</td><td>"
      html += ReportFormat.escape(outcome?.failedStep ?? "") + "</td><td class=\"number\">"
      html += ReportFormat.escape(outcome?.decidedAt ?? "") + "</td><td class=\"number\">"
      html += ReportFormat.escape(outcome?.score ?? "") + "</td></tr>\n"
    }
  }

  /// Every point's outcomes, row by row, as JSON for the script that
  /// switches points. `<` is written as an escape, so that no text in it
  /// can end the script element that holds it.
  func outcomesJSON() -> String {
    var writer = JSONWriter(capacity: rows.count * pointCount * 48)
    writer.raw("[")
    for point in 0..<pointCount {
      if point > 0 { writer.raw(",") }
      writer.raw("[")
      for (index, row) in rows.enumerated() {
        if index > 0 { writer.raw(",") }
        writer.value(row.outcomes[point]?.cells ?? .null)
      }
      writer.raw("]")
    }
    writer.raw("]")
    return writer.string.replacingOccurrences(of: "<", with: "\\u003c")
  }
}
