import Foundation
import JSONCore
import TestSupport
import Testing

@testable import EvaluationReport

/// The page's pieces, found by their markup.
enum Page {
  static func render(
    _ summary: JSONObject = EvaluationRun.summary(), sessions: [JSONObject] = EvaluationRun.sessions(),
    links: [String: String] = [:]
  ) -> String {
    EvaluationReport.html(
      summary: summary, sessions: sessions, options: .init(title: "Blink liveness", sessionLinks: links))
  }

  /// The `<tr ...>` of the summary table's measure `id` in the point's results.
  static func measure(_ html: some StringProtocol, _ id: String) -> Substring? {
    HTMLText.elements(String(html), start: "<tr data-measure=\"\(id)\"", end: "</tr>").first
  }

  /// The results of one point (`<div class="point-detail" data-point="i"...>`).
  static func point(_ html: String, _ index: Int) -> Substring? {
    HTMLText.elements(html, start: "<div class=\"point-detail\" data-point=\"\(index)\"", end: "\n</div>\n").first
  }

  static func section(_ html: String, id: String) -> Substring? {
    HTMLText.elements(html, start: "<section id=\"\(id)\">", end: "</section>").first
  }

  /// The sessions table's rows.
  static func sessionRows(_ html: String) -> [Substring] {
    guard let table = HTMLText.elements(html, start: "<table id=\"session-table\">", end: "</table>").first else {
      return []
    }
    return HTMLText.elements(String(table), start: "<tr data-label=", end: "</tr>")
  }

  /// The text of each `<td>` of a row, without markup or the spaces around it.
  static func cells(_ row: some StringProtocol) -> [String] {
    HTMLText.elements(String(row), start: "<td", end: "</td>").map(plainText)
  }

  /// `markup` without its tags.
  static func plainText(_ markup: some StringProtocol) -> String {
    var text = ""
    var inTag = false
    for character in markup {
      if character == "<" {
        inTag = true
      } else if character == ">" {
        inTag = false
      } else if !inTag {
        text.append(character)
      }
    }
    return text.trimmingCharacters(in: .whitespaces)
  }
}

@Suite struct SummaryTests {
  let html = Page.render()

  @Test func theHeaderNamesTheFlowTheScoreAndTheCorpus() {
    #expect(html.contains("<title>Blink liveness · workbench evaluation</title>"))
    #expect(html.contains("<h1>Blink liveness</h1>"))
    #expect(html.contains("<p class=\"file\">flow liveness · score face.blink_left:max</p>"))
    #expect(html.contains("<dt>sessions</dt><dd>18</dd>"))
    #expect(html.contains("<dt>bona fide presentations</dt><dd>10</dd>"))
    #expect(html.contains("<dt>attack presentations</dt><dd>8 (print 4, replay 4)</dd>"))
    #expect(html.contains("<dt>settings</dt><dd>liveness.blink_threshold = 0.3</dd>"))
    #expect(html.contains("<dt>no response</dt><dd>end_of_input</dd>"))
  }

  @Test func everyMeasureHasItsRateIntervalAndCounts() throws {
    let expected: [(String, [String])] = [
      ("bpcer", ["11.1%", "0.28% – 48.2%", "1 / 9"]),
      ("apcer:print", ["25.0%", "0.63% – 80.6%", "1 / 4"]),
      ("apcer:replay", ["0.0%", "0.0% – 60.2%", "0 / 4"]),
      ("apcer_max", ["25.0%", "0.63% – 80.6%", "1 / 4"]),
      ("apnrr", ["0.0%", "0.0% – 36.9%", "0 / 8"]),
      ("bpnrr", ["10.0%", "0.25% – 44.5%", "1 / 10"]),
      ("acer", ["18.1%", "–", "–"]),
    ]
    let table = try #require(HTMLText.elements(html, start: "<table class=\"rates\">", end: "</table>").first)
    let ids = HTMLText.elements(String(table), start: "<tr data-measure=", end: ">").compactMap {
      HTMLText.attribute("data-measure", in: $0)
    }
    #expect(ids == expected.map(\.0), "ISO's order: BPCER, each species, the reported maximum, APNRR, BPNRR, ACER")
    for (id, numbers) in expected {
      let row = try #require(Page.measure(table, id))
      #expect(Array(Page.cells(row).dropFirst()) == numbers, "\(id)")
    }
    #expect(Page.measure(table, "bpcer")?.contains("<span class=\"measure\">BPCER</span>") == true)
    #expect(Page.measure(table, "apcer:print")?.contains("APCER · print") == true)
    let reported = try #require(Page.measure(table, "apcer_max"))
    #expect(reported.contains("APCER (max, reported)") && reported.contains("the highest of the species: print"))
    #expect(Page.measure(table, "acer")?.contains("<span class=\"tag not-iso\">not a 30107-3 measure</span>") == true)
  }

  @Test func apcerPerSpeciesIsABarWithItsIntervalAsAWhisker() throws {
    let chart = try #require(HTMLText.elements(html, start: "<svg class=\"plot species\"", end: "</svg>").first)
    let rows = HTMLText.elements(String(chart), start: "<g class=\"bar-row", end: "</text></g>")
    #expect(rows.compactMap { HTMLText.attribute("data-bar", in: $0) } == ["print", "replay"])
    let printRow = try #require(rows.first)
    #expect(printRow.hasPrefix("<g class=\"bar-row highlighted\""), "the reported species stands out")
    #expect(!rows[1].hasPrefix("<g class=\"bar-row highlighted\""))
    // The axis runs 0…100% (the widest interval reaches 80.6%) over 488 px from x = 192.
    let bar = try #require(HTMLText.elements(String(printRow), start: "<rect class=\"bar\"", end: "/>").first)
    #expect(HTMLText.attribute("x", in: bar) == "192.0")
    #expect(HTMLText.attribute("width", in: bar) == "122.0", "25% of 488 px")
    let whisker = try #require(HTMLText.elements(String(printRow), start: "<g class=\"whisker\">", end: "</g>").first)
    let line = try #require(HTMLText.elements(String(whisker), start: "<line", end: "/>").first)
    #expect(HTMLText.attribute("x1", in: line) == "195.1", "0.63%")
    #expect(HTMLText.attribute("x2", in: line) == "585.3", "80.6%")
    #expect(printRow.contains("25.0%  (0.63% – 80.6%)  1 / 4"))
    #expect(rows[1].contains("<rect class=\"bar\" x=\"192.0\" y=\"37.0\" width=\"0.0\""), "0% is no bar")
  }

  @Test func rejectedBonaFideAreBarsByStepAndReason() throws {
    var summary = EvaluationRun.summary()
    summary["rejected_bona_fide"] = [
      ["step": "blink", "reason": "step_timeout", "count": 4],
      ["step": "turn_left", "reason": "face_lost", "count": 1],
    ]
    let chart = try #require(
      HTMLText.elements(Page.render(summary), start: "<svg class=\"plot failures\"", end: "</svg>").first)
    let rows = HTMLText.elements(String(chart), start: "<g class=\"bar-row", end: "</text></g>")
    #expect(
      rows.compactMap { HTMLText.attribute("data-bar", in: $0) } == ["blink/step_timeout", "turn_left/face_lost"])
    #expect(rows[0].contains(">blink · step_timeout</text>"))
    let widths = rows.compactMap {
      HTMLText.elements(String($0), start: "<rect", end: "/>").first.flatMap { HTMLText.attribute("width", in: $0) }
    }
    #expect(widths == ["488.0", "122.0"], "4 and 1 on an axis of 0…4")
  }

  @Test func acceptedAttacksAndTimesToDecisionAreListed() throws {
    let point = try #require(Page.point(html, 0))
    #expect(point.contains("<ul class=\"ids\">\n<li>attack/print/p1.jsonl</li>\n</ul>"))
    let times = try #require(HTMLText.elements(String(point), start: "<table class=\"times\">", end: "</table>").first)
    let rows = HTMLText.elements(String(times), start: "<tr data-label=", end: "</tr>").map(Page.cells)
    #expect(rows == [["bona fide", "3.10 s", "5.20 s"], ["attack", "8.00 s", "10.00 s"]])
  }

  @Test func theSamePageForTheSameInput() {
    #expect(Page.render() == html)
    #expect(
      Page.render(EvaluationRun.sweepSummary(), sessions: EvaluationRun.sweepSessions())
        == Page.render(EvaluationRun.sweepSummary(), sessions: EvaluationRun.sweepSessions()))
  }
}

@Suite struct MissingDataTests {
  /// A corpus of bona fide presentations only: every attack rate has no denominator.
  static func noAttacks() -> JSONObject {
    var summary = EvaluationRun.summary(scores: false)
    summary["counts"] = [
      "sessions": 10, "bona_fide": ["total": 10, "accepted": 8, "rejected": 1, "none": 1],
      "attack": ["total": 0, "accepted": 0, "rejected": 0, "none": 0], "species": [:],
    ]
    for key in ["apcer", "apcer_ci"] { summary[key] = [:] }
    for key in ["apcer_max", "apcer_max_species", "apcer_max_ci", "apnrr", "apnrr_ci", "acer"] { summary[key] = .null }
    summary["accepted_attacks"] = []
    summary["time_to_decision"] = ["bona_fide": ["median": 3.1, "p95": 5.2], "attack": ["median": nil, "p95": nil]]
    return summary
  }

  @Test func nullRatesAreADashWithNoPresentations() throws {
    let html = Page.render(Self.noAttacks(), sessions: Array(EvaluationRun.sessions().prefix(10)))
    for id in ["apcer_max", "apnrr"] {
      let row = try #require(Page.measure(html, id))
      #expect(Array(Page.cells(row).dropFirst()) == ["–", "–", "0 / 0"], "\(id)")
    }
    #expect(Page.measure(html, "apcer_max")?.contains("the highest of the species: –") == true)
    #expect(Page.cells(try #require(Page.measure(html, "acer"))).dropFirst().first == "–")
    #expect(Page.measure(html, "apcer:print") == nil, "no species, no species rows")
    #expect(!html.contains("<svg class=\"plot species\""))
    #expect(
      html.contains(
        "<section class=\"species\">\n<h2>APCER per species</h2>\n"
          + "<p class=\"empty\">The corpus has no attack presentations.</p>"))
    #expect(html.contains("<h2>Accepted attacks</h2>\n<p class=\"empty\">The corpus has no attack presentations.</p>"))
    #expect(html.contains("<td>attack</td><td class=\"number\">–</td><td class=\"number\">–</td>"))
    #expect(Page.measure(html, "bpcer").map { Page.cells($0)[1] } == "11.1%")
  }

  @Test func noBonaFidePresentations() throws {
    var summary = EvaluationRun.summary(scores: false)
    summary["counts"] = [
      "sessions": 8, "bona_fide": ["total": 0, "accepted": 0, "rejected": 0, "none": 0],
      "attack": ["total": 8, "accepted": 1, "rejected": 7, "none": 0],
      "species": ["print": ["total": 8, "accepted": 1, "rejected": 7, "none": 0]],
    ]
    for key in ["bpcer", "bpcer_ci", "bpnrr", "bpnrr_ci", "acer"] { summary[key] = .null }
    summary["rejected_bona_fide"] = []
    let html = Page.render(summary, sessions: Array(EvaluationRun.sessions().suffix(8)))
    for id in ["bpcer", "bpnrr"] {
      #expect(Page.measure(html, id).map { Array(Page.cells($0).dropFirst()) } == ["–", "–", "0 / 0"], "\(id)")
    }
    #expect(html.contains("<p class=\"empty\">The corpus has no bona fide presentations.</p>"))
    #expect(Page.sessionRows(html).count == 8)
  }

  @Test func withoutScoresThereIsNoDETCurve() {
    let html = Page.render(EvaluationRun.summary(scores: false))
    #expect(!html.contains("<svg class=\"plot det\""))
    #expect(!html.contains("DET curve"))
    #expect(html.contains("<p class=\"file\">flow liveness · score none</p>"))
    let sweep = Page.render(EvaluationRun.sweepSummary(scores: false), sessions: EvaluationRun.sweepSessions())
    #expect(!sweep.contains("<svg class=\"plot det\""))
    #expect(Page.render().contains("<svg class=\"plot det\""), "and with them there is")
  }

  @Test func noSessions() {
    let html = Page.render(sessions: [])
    #expect(html.contains("<p class=\"empty\">No sessions were given.</p>"))
    #expect(!html.contains("id=\"session-table\""))
  }
}

@Suite struct EscapingTests {
  static let hostile = "<script>alert(1)</script>"

  @Test func idsSpeciesAndEveryOtherStringAreEscaped() throws {
    var sessions = EvaluationRun.sessions()
    sessions[0]["id"] = .string(Self.hostile)
    sessions[10]["species"] = "<b onmouseover=\"x\">print</b>"
    sessions[10]["reason"] = "</td></tr><tr><td>"
    var summary = EvaluationRun.summary()
    summary["accepted_attacks"] = [.string(Self.hostile)]
    summary["counts"] = .object(
      object([
        "sessions": 18, "bona_fide": ["total": 10, "accepted": 8, "rejected": 1, "none": 1],
        "attack": ["total": 8, "accepted": 1, "rejected": 7, "none": 0],
        "species": ["<img src=x onerror=alert(2)>": ["total": 8, "accepted": 1, "rejected": 7, "none": 0]],
      ]))
    summary["flow"] = "a & b"
    let html = EvaluationReport.html(
      summary: summary, sessions: sessions, options: .init(title: "<i>title</i>", sessionLinks: [:]))
    #expect(!html.contains("<script>alert"))
    #expect(!html.contains("<img"))
    #expect(!html.contains("<b "))
    #expect(!html.contains("<i>title"))
    #expect(HTMLText.count("<script", in: html) == 1, "the page's own script only")
    #expect(html.contains("<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>"))
    #expect(html.contains("<li>&lt;script&gt;alert(1)&lt;/script&gt;</li>"))
    #expect(html.contains("data-species=\"&lt;b onmouseover=&quot;x&quot;&gt;print&lt;/b&gt;\""))
    #expect(html.contains("&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;"))
    #expect(html.contains("&lt;img src=x onerror=alert(2)&gt;"))
    #expect(html.contains("flow a &amp; b"))
    #expect(Page.sessionRows(html).count == 18, "no row was broken open")
  }

  @Test func theSweepsDataCannotCloseItsScript() throws {
    var sessions = EvaluationRun.sweepSessions()
    sessions[0]["error"] = "</script><script>alert(2)</script>"
    sessions[0]["reason"] = .string(Self.hostile)
    let html = Page.render(EvaluationRun.sweepSummary(), sessions: sessions)
    #expect(HTMLText.count("<script", in: html) == 2, "the sweep's data and the page's script")
    #expect(HTMLText.count("</script>", in: html) == 2)
    let data = try #require(
      HTMLText.elements(html, start: "<script type=\"application/json\" id=\"point-sessions\">", end: "</script>")
        .first)
    let json = data.dropFirst("<script type=\"application/json\" id=\"point-sessions\">".count)
      .dropLast("</script>".count)
    let parsed = try JSONParser.parse(String(json))
    #expect(parsed.arrayValue?.first?.arrayValue?.first?.arrayValue?[1] == .string(Self.hostile), "read back whole")
    #expect(parsed.arrayValue?.first?.arrayValue?.first?.arrayValue?[5] == "</script><script>alert(2)</script>")
  }
}

@Suite struct LinkTests {
  @Test func sessionsAreLinksOnlyWhenTheirPagesAreGiven() throws {
    let without = Page.render()
    #expect(!(Page.section(without, id: "sessions")?.contains("<a ") ?? true))
    #expect(!without.contains("<a href"))
    let links = [
      "attack/print/p1.jsonl": "sessions/attack-print-p1/report.html",
      "bona_fide/b09.jsonl": "sessions/bona_fide-b09/report.html?a=1&b=2",
    ]
    let html = Page.render(links: links)
    let rows = Page.sessionRows(html)
    let linked = rows.filter { $0.contains("<a href=") }
    #expect(linked.count == 2)
    #expect(
      linked.contains { $0.contains("<a href=\"sessions/attack-print-p1/report.html\">attack/print/p1.jsonl</a>") })
    #expect(linked.contains { $0.contains("<a href=\"sessions/bona_fide-b09/report.html?a=1&amp;b=2\">") })
    #expect(html.contains("<li><a href=\"sessions/attack-print-p1/report.html\">attack/print/p1.jsonl</a></li>"))
    #expect(HTMLText.count("<a href=", in: html) == 3, "two rows and the accepted attack")
  }
}

@Suite struct SessionTableTests {
  @Test func oneRowPerSessionWithItsOutcome() throws {
    let rows = Page.sessionRows(Page.render())
    #expect(rows.count == 18)
    #expect(
      Page.cells(rows[8]) == ["bona_fide/b09.jsonl", "bona fide", "", "rejected", "step_timeout", "blink", "", "0.74"])
    #expect(rows[8].contains("<td class=\"decision wrong\">rejected</td>"))
    #expect(rows[0].contains("<td class=\"decision correct\">accepted</td>"))
    #expect(Page.cells(rows[0])[6] == "2.500", "decided at, in seconds")
    #expect(rows[9].contains("<td class=\"decision no-response\">none</td>"))
    #expect(
      Page.cells(rows[10]) == ["attack/print/p1.jsonl", "attack", "print", "accepted", "passed", "", "8.000", "0.2"])
    #expect(rows[10].hasPrefix("<tr data-label=\"attack\" data-species=\"print\" data-decision=\"accepted\">"))
  }

  @Test func theFiltersOfferWhatTheSessionsHold() throws {
    let html = Page.render()
    let filters = try #require(
      HTMLText.elements(html, start: "<form class=\"controls\" id=\"session-filters\"", end: "</form>").first)
    #expect(filters.hasPrefix("<form class=\"controls\" id=\"session-filters\" hidden>"), "shown by the script")
    let options = { (name: String) -> [String] in
      let select =
        HTMLText.elements(String(filters), start: "<select id=\"filter-\(name)\"", end: "</select>").first ?? ""
      return HTMLText.elements(String(select), start: "<option", end: ">").compactMap {
        HTMLText.attribute("value", in: $0)
      }
    }
    #expect(options("label") == ["", "bona_fide", "attack"])
    #expect(options("species") == ["", "print", "replay"])
    #expect(options("decision") == ["", "accepted", "rejected", "none"])
  }

  @Test func scoresAreShownToFourDecimals() {
    #expect(SessionTable.Outcome.scoreText(0.30000000000000004) == "0.3")
    #expect(SessionTable.Outcome.scoreText(0.823456) == "0.8235")
    #expect(SessionTable.Outcome.scoreText(12) == "12")
    #expect(SessionTable.Outcome.scoreText(-0.00001) == "0")
  }

  @Test func tenThousandSessionsAreOneRowEachOnAPageOfLinearSize() throws {
    let base = EvaluationRun.sessions()
    let sessions = (0..<10_000).map { index -> JSONObject in
      var record = base[index % base.count]
      record["id"] = .string("corpus/session-\(index).jsonl")
      return record
    }
    let html = Page.render(sessions: sessions)
    let rows = Page.sessionRows(html)
    #expect(rows.count == 10_000)
    #expect(rows.last?.contains("corpus/session-9999.jsonl") == true)
    #expect(html.utf8.count < 10_000 * 400, "\(html.utf8.count) bytes")

    // A sweep of three points: still a row per session, the other points as data.
    let sweepSessions = (0..<3).flatMap { point in
      sessions.map { record -> JSONObject in
        var record = record
        record["settings"] = EvaluationRun.sweepSettings(point)
        return record
      }
    }
    let sweep = Page.render(EvaluationRun.sweepSummary(chosen: 1, points: 3), sessions: sweepSessions)
    #expect(Page.sessionRows(sweep).count == 10_000)
    #expect(sweep.utf8.count < 10_000 * 3 * 400, "\(sweep.utf8.count) bytes")
  }

  @Test func recordsThatFitNoPointAreCountedNotShown() {
    var sessions = EvaluationRun.sweepSessions()
    sessions.append(
      object(["id": "stray", "label": "attack", "settings": ["liveness.blink_threshold": 0.9], "decision": "accepted"]))
    sessions.append(sessions[0])
    let html = Page.render(EvaluationRun.sweepSummary(), sessions: sessions)
    #expect(html.contains("18 sessions; 2 records fit no point of the sweep, or repeat a session, and are not shown."))
    #expect(!html.contains(">stray<"))
  }
}

@Suite struct SweepTests {
  let html = Page.render(EvaluationRun.sweepSummary(), sessions: EvaluationRun.sweepSessions())

  var plot: Substring? { HTMLText.elements(html, start: "<svg class=\"plot sweep\"", end: "</svg>").first }

  @Test func everyPointIsACircleWithItsSettingsInItsTooltip() throws {
    let plot = try #require(plot)
    let circles = HTMLText.elements(String(plot), start: "<circle class=\"sweep-point", end: "</circle>")
    #expect(circles.compactMap { HTMLText.attribute("data-point", in: $0) } == ["0", "1", "2", "3", "4"])
    #expect(
      circles[4].contains(
        "<title>point 4\nliveness.blink_threshold = 0.3\nliveness.timeout = 8\nAPCER (max) 12.5%, BPCER 20.0%\n"
          + "on the front\nchosen</title>"))
    #expect(circles.filter { $0.hasPrefix("<circle class=\"sweep-point front-point") }.count == 4)
    #expect(!circles[2].contains("front-point"), "point 2 is behind the front")
    // APCER up to 50% and BPCER up to 40% on axes of 0…50% and 0…40%, 864 by 336 px.
    #expect(HTMLText.attribute("cx", in: circles[0]) == "936.0")
    #expect(HTMLText.attribute("cy", in: circles[0]) == "352.0")
    #expect(HTMLText.attribute("cx", in: circles[3]) == "72.0")
    #expect(HTMLText.attribute("cy", in: circles[3]) == "16.0")
  }

  @Test func theFrontIsJoinedFromTheLowestAPCERAndTheChosenPointIsRinged() throws {
    let plot = try #require(plot)
    let front = try #require(HTMLText.elements(String(plot), start: "<polyline class=\"front\"", end: "/>").first)
    // Points 3, 4, 1 and 0, by APCER (max).
    #expect(HTMLText.attribute("points", in: front) == "72.0,16.0 288.0,184.0 504.0,258.7 936.0,352.0")
    let ring = try #require(HTMLText.elements(String(plot), start: "<circle class=\"chosen-marker\"", end: "/>").first)
    #expect(HTMLText.attribute("data-point", in: ring) == "4")
    #expect(HTMLText.attribute("cx", in: ring) == "288.0")
    #expect(plot.contains(">chosen</text>"))
    #expect(plot.contains("<g class=\"target\"><line x1=\"331.2\""), "the target APCER of 15%")
    #expect(html.contains("<dt>target APCER</dt><dd>15.0%: point 4 chosen</dd>"))
    #expect(html.contains("<dt>sweep</dt><dd>5 points of liveness.blink_threshold, liveness.timeout</dd>"))
  }

  @Test func thePointsTableMarksTheFrontAndTheChosenPoint() throws {
    let table = try #require(HTMLText.elements(html, start: "<table id=\"points\">", end: "</table>").first)
    let rows = HTMLText.elements(String(table), start: "<tr data-point=", end: "</tr>")
    #expect(rows.count == 5)
    #expect(Page.cells(rows[4]) == ["4", "0.3", "8", "12.5%", "20.0%", "0.0%", "10.0%", "18.1%", "chosen front"])
    #expect(rows[4].hasPrefix("<tr data-point=\"4\" class=\"selected\">"))
    #expect(Page.cells(rows[2]).last == "", "neither chosen nor on the front")
  }

  @Test func theChosenPointIsShownAndTheOthersAreThereForTheSelector() throws {
    for index in 0..<5 {
      let point = try #require(Page.point(html, index))
      #expect(point.hasPrefix("<div class=\"point-detail\" data-point=\"\(index)\"\(index == 4 ? ">" : " hidden>")"))
      #expect(point.contains("<h2>Results <span class=\"at-point\">at point \(index)</span>"))
      #expect(point.contains("<svg class=\"plot det\""), "each point has its DET curve")
    }
    let select = try #require(HTMLText.elements(html, start: "<select id=\"point-select\">", end: "</select>").first)
    #expect(HTMLText.count("<option", in: select) == 5)
    #expect(
      select.contains("<option value=\"4\" selected>point 4 (liveness.blink_threshold = 0.3, liveness.timeout = 8)"))
    #expect(html.contains("<p class=\"controls\" id=\"point-controls\" hidden>"), "shown by the script")
  }

  @Test func theSessionsTableShowsTheChosenPointAndHoldsTheOthers() throws {
    let rows = Page.sessionRows(html)
    #expect(rows.count == 18, "one row per session, not per record")
    // At point 4 the third print attack was accepted, the first rejected.
    #expect(Page.cells(rows[10])[3] == "rejected")
    #expect(Page.cells(rows[12])[3] == "accepted")
    #expect(html.contains("<h2>Sessions <span class=\"at-point\" id=\"sessions-point\">at point 4</span></h2>"))
    let data = try #require(
      HTMLText.elements(html, start: "<script type=\"application/json\" id=\"point-sessions\">", end: "</script>")
        .first)
    let json = try JSONParser.parse(
      String(data.dropFirst("<script type=\"application/json\" id=\"point-sessions\">".count).dropLast(9)))
    let points = try #require(json.arrayValue)
    #expect(points.count == 5)
    #expect(points.allSatisfy { $0.arrayValue?.count == 18 })
    #expect(points[0].arrayValue?[10] == ["accepted", "passed", "", "8.000", "0.2", ""])
    #expect(
      points[3].arrayValue?.compactMap { $0.arrayValue?.first?.stringValue }.filter { $0 == "accepted" }.count == 8)
  }

  @Test func withNoPointMeetingTheTargetTheFirstIsShown() throws {
    let html = Page.render(EvaluationRun.sweepSummary(chosen: nil), sessions: EvaluationRun.sweepSessions())
    #expect(!html.contains("<circle class=\"chosen-marker\""))
    #expect(html.contains("<dt>target APCER</dt><dd>15.0%: no point meets it</dd>"))
    #expect(try #require(Page.point(html, 0)).hasPrefix("<div class=\"point-detail\" data-point=\"0\">"))
    #expect(Page.cells(try #require(Page.sessionRows(html).first))[3] == "accepted")
    #expect(html.contains("<polyline class=\"front\""))
  }

  @Test func aSweepOfOnePoint() throws {
    let html = Page.render(
      EvaluationRun.sweepSummary(chosen: 0, points: 1), sessions: EvaluationRun.sweepSessions(points: 1))
    let plot = try #require(HTMLText.elements(html, start: "<svg class=\"plot sweep\"", end: "</svg>").first)
    #expect(HTMLText.count("<circle class=\"sweep-point", in: plot) == 1)
    #expect(!plot.contains("<polyline class=\"front\""), "a front of one point is no line")
    #expect(plot.contains("<circle class=\"chosen-marker\" data-point=\"0\""))
    #expect(!html.contains("id=\"point-sessions\""), "nothing to switch to")
    #expect(Page.sessionRows(html).count == 18)
  }
}

@Suite struct DETTests {
  let html = Page.render()

  @Test func theNormalDeviateIsTheInverseOfTheNormalDistribution() {
    #expect(abs(NormalDeviate.of(0.5)) < 1e-12)
    #expect(abs(NormalDeviate.of(0.975) - 1.959963985) < 1e-8)
    #expect(abs(NormalDeviate.of(0.001) + 3.090232306) < 1e-8)
    #expect(abs(NormalDeviate.of(0.8) - 0.841621234) < 1e-8)
    for p in [0.0001, 0.01, 0.02425, 0.1, 0.3] {
      #expect(abs(NormalDeviate.of(p) + NormalDeviate.of(1 - p)) < 1e-8, "symmetric at \(p)")
    }
  }

  @Test func theAxesAreOnTheNormalDeviateScaleWithTheUsualTicks() throws {
    let plot = try #require(HTMLText.elements(html, start: "<svg class=\"plot det\"", end: "</svg>").first)
    let labels = HTMLText.elements(String(plot), start: "<text class=\"tick-label det-tick\"", end: "</text>")
    let across = labels.filter { HTMLText.attribute("text-anchor", in: $0) == "middle" }
    #expect(across.map(Page.plainText) == ["0.1%", "1%", "5%", "20%", "50%", "80%"])
    let xs = across.compactMap { HTMLText.attribute("x", in: $0).flatMap(Double.init) }
    // Equal steps of the deviate are equal distances: 1%→5% against 20%→50%.
    let ratio = (xs[2] - xs[1]) / (xs[4] - xs[3])
    let expected = (NormalDeviate.of(0.05) - NormalDeviate.of(0.01)) / (NormalDeviate.of(0.5) - NormalDeviate.of(0.2))
    #expect(abs(ratio - expected) < 0.01, "\(ratio) against \(expected)")
    #expect(xs == xs.sorted())
  }

  @Test func theCurveHasEveryThresholdAndRatesOfZeroAndOneSitOnTheAxisEnds() throws {
    let plot = try #require(HTMLText.elements(html, start: "<svg class=\"plot det\"", end: "</svg>").first)
    let curve = try #require(HTMLText.elements(String(plot), start: "<polyline class=\"det-curve\"", end: "/>").first)
    let points = try #require(HTMLText.attribute("points", in: curve)).split(separator: " ")
    #expect(points.count == 11)
    // APCER 1 and BPCER 0: the right end and the bottom; APCER 0 and BPCER 1: the left end and the top.
    #expect(points.first == "472.0,416.0")
    #expect(points.last == "72.0,16.0")
    let eer = try #require(HTMLText.elements(String(plot), start: "<g class=\"eer-marker\"", end: "</g>").first)
    let x = DETPlot.x(0.12)
    #expect(
      eer.contains("<circle cx=\"\(String(format: "%.1f", x))\" cy=\"\(String(format: "%.1f", DETPlot.y(0.12)))\""))
    #expect(eer.contains(">EER 12.0%</text>"))
    #expect(plot.contains(">BPCER20 30.0%</text>") && plot.contains(">BPCER100 50.0%</text>"))
  }

  @Test func theOperatingPointsAreNotedBesideTheCurve() {
    #expect(html.contains("<dt>EER</dt><dd>12.0% at threshold 0.4</dd>"))
    #expect(html.contains("<dt>BPCER at APCER 5% (BPCER20)</dt><dd>30.0% at threshold 0.6</dd>"))
    #expect(html.contains("<dt>BPCER at APCER 1% (BPCER100)</dt><dd>50.0% at threshold 0.8</dd>"))
    #expect(html.contains("<dt>APCER (max) at BPCER 5%</dt><dd>20.0% at threshold 0.35</dd>"))
    #expect(EvaluationPage.levelName("BPCER", "0.03") == "", "no such name for 3%")
  }
}
