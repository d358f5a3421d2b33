import JSONCore
import SessionReport

/// Builds the page: the header, the sweep, the results of each point (only
/// the shown one visible) and the sessions.
struct EvaluationPage {
  let evaluation: Evaluation
  let sessions: SessionTable
  let options: EvaluationReport.Options

  private func e(_ text: String) -> String { ReportFormat.escape(text) }

  func html() -> String {
    var html = ""
    // The sessions table dominates a large run's page; one buffer for all of it.
    html.reserveCapacity((64 << 10) + sessions.rows.count * 400)
    html += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    html += "<meta name=\"generator\" content=\"workbench evaluation report\">\n"
    html += "<title>\(e(options.title)) · workbench evaluation</title>\n"
    html += "<style>\n\(ReportStyle.common)\(EvaluationPage.stylesheet)</style>\n</head>\n<body>\n"
    html += header()
    if evaluation.isSweep { html += sweepSection() }
    if evaluation.points.isEmpty {
      html += "<p class=\"empty\">The sweep has no points.</p>\n"
    }
    for point in evaluation.points {
      html += pointDetail(point)
    }
    appendSessionsSection(to: &html)
    html += "<footer>workbench evaluation report · measures of ISO/IEC 30107-3</footer>\n"
    html += "<script>\n\(EvaluationPage.script)</script>\n</body>\n</html>\n"
    return html
  }

  // MARK: Header

  /// "score face.liveness:min", or the flow's own score (`flow` in the summary).
  private var scoreName: String? {
    evaluation.score.map { $0 == "flow" ? "score of the flow (wb.flow's score)" : "score " + $0 }
  }

  private func header() -> String {
    var html = "<header class=\"top\">\n<div class=\"title\"><h1>\(e(options.title))</h1>"
    var subtitle: [String] = []
    if let flow = evaluation.flow { subtitle.append("flow " + flow) }
    subtitle.append(scoreName ?? "score none")
    html += "<p class=\"file\">\(e(subtitle.joined(separator: " · ")))</p></div>\n</header>\n"
    var facts: [(String, String)] = []
    if let point = evaluation.points.first {
      // The corpus is the same at every point; the shown one's counts tell it.
      let counted = evaluation.points[evaluation.shownPoint]
      facts.append(("sessions", counted.sessionCount.map(String.init) ?? String(sessions.rows.count)))
      facts.append(("bona fide presentations", String(counted.bonaFide.total)))
      var attacks = String(counted.attack.total)
      if !counted.species.isEmpty {
        attacks += " (" + counted.species.map { "\($0.name) \($0.tally.total)" }.joined(separator: ", ") + ")"
      }
      facts.append(("attack presentations", attacks))
      if !evaluation.isSweep {
        let settings = evaluation.settingsText(point)
        facts.append(("settings", settings.isEmpty ? "defaults" : settings))
      }
    }
    if evaluation.isSweep {
      let keys = evaluation.sweepKeys.isEmpty ? "" : " of " + evaluation.sweepKeys.joined(separator: ", ")
      facts.append(("sweep", "\(evaluation.points.count) points\(keys)"))
      if let target = evaluation.targetAPCER {
        let chosen = evaluation.chosen.map { "point \($0) chosen" } ?? "no point meets it"
        facts.append(("target APCER", Percent.text(target) + ": " + chosen))
      }
    }
    let reasons = (evaluation.summary["no_response_reasons"]?.arrayValue ?? []).map(ReportFormat.cell)
    if !reasons.isEmpty { facts.append(("no response", reasons.joined(separator: ", "))) }
    html += "<dl class=\"facts\">\n"
    for (name, value) in facts {
      html += "<div><dt>\(e(name))</dt><dd>\(e(value))</dd></div>\n"
    }
    return html + "</dl>\n"
  }

  // MARK: Sweep

  private func tags(_ point: EvaluationPoint) -> String {
    var html = ""
    if evaluation.chosen == point.index { html += " <span class=\"tag chosen\">chosen</span>" }
    if evaluation.front.contains(point.index) { html += " <span class=\"tag front\">front</span>" }
    return html
  }

  private func sweepSection() -> String {
    let plot = SweepPlot(evaluation: evaluation)
    var html = "<section id=\"sweep\">\n<h2>Sweep</h2>\n"
    html +=
      "<p class=\"legend\"><span class=\"key dot\"></span>point <span class=\"key dot front\"></span>on the front "
    html += "<span class=\"key front-line\"></span>front (no point below and left of it)"
    if evaluation.chosen != nil { html += " <span class=\"key chosen-ring\"></span>chosen" }
    if evaluation.targetAPCER != nil { html += " <span class=\"key target\"></span>target APCER" }
    html += "</p>\n<div class=\"chart\">" + plot.svg() + "</div>\n"
    let missing = evaluation.points.count - plot.placed.count
    if missing > 0 {
      html += "<p class=\"note\">\(missing) of \(evaluation.points.count) points have no APCER (max) or BPCER"
      html += " and are not drawn.</p>\n"
    }
    html += "<p class=\"controls\" id=\"point-controls\" hidden><label>Point shown below "
    html += "<select id=\"point-select\">"
    for point in evaluation.points {
      let selected = point.index == evaluation.shownPoint ? " selected" : ""
      html += "<option value=\"\(point.index)\"\(selected)>\(e(evaluation.pointName(point)))</option>"
    }
    html += "</select></label></p>\n"
    html += "<table id=\"points\">\n<thead><tr><th>point</th>"
    for key in evaluation.sweepKeys { html += "<th>\(e(key))</th>" }
    html += "<th>APCER (max)</th><th>BPCER</th><th>APNRR</th><th>BPNRR</th><th>ACER</th><th></th></tr></thead>\n"
    html += "<tbody>\n"
    for point in evaluation.points {
      let selected = point.index == evaluation.shownPoint ? " class=\"selected\"" : ""
      html += "<tr data-point=\"\(point.index)\"\(selected)><td>\(point.index)</td>"
      for key in evaluation.sweepKeys {
        html += "<td>\(e(point.settings[key].map(ReportFormat.cell) ?? "–"))</td>"
      }
      for rate in [point.apcerMax.value, point.bpcer.value, point.apnrr.value, point.bpnrr.value, point.acer] {
        html += "<td class=\"number\">\(Percent.text(rate))</td>"
      }
      html += "<td>\(tags(point))</td></tr>\n"
    }
    return html + "</tbody>\n</table>\n</section>\n"
  }

  // MARK: One point's results

  private func pointDetail(_ point: EvaluationPoint) -> String {
    let hidden = point.index == evaluation.shownPoint ? "" : " hidden"
    var html = "<div class=\"point-detail\" data-point=\"\(point.index)\"\(hidden)>\n"
    html += ratesSection(point)
    html += speciesSection(point)
    if let scores = point.scores { html += detSection(point, scores: scores) }
    html += failuresSection(point)
    html += acceptedSection(point)
    html += timeSection(point)
    return html + "</div>\n"
  }

  /// A section's heading; with a sweep, the point it is of (and, on the
  /// first, whether it is chosen or on the front).
  private func heading(_ title: String, _ point: EvaluationPoint, tagged: Bool = false) -> String {
    guard evaluation.isSweep else { return "<h2>\(e(title))</h2>\n" }
    let tags = tagged ? tags(point) : ""
    return "<h2>\(e(title)) <span class=\"at-point\">at point \(point.index)</span>\(tags)</h2>\n"
  }

  private func ratesSection(_ point: EvaluationPoint) -> String {
    var html = "<section class=\"results\">\n" + heading("Results", point, tagged: true)
    if evaluation.isSweep {
      let settings = evaluation.settingsText(point)
      if !settings.isEmpty { html += "<p class=\"note\">\(e(settings))</p>\n" }
    }
    html += "<table class=\"rates\">\n<thead><tr><th>measure</th><th class=\"number\">rate</th>"
    html += "<th class=\"number\">interval</th><th class=\"number\">errors / presentations</th></tr></thead>\n<tbody>\n"
    func row(_ id: String, _ name: String, _ what: String, _ rate: Rate, tag: String = "") {
      html += "<tr data-measure=\"\(e(id))\"><td><span class=\"measure\">\(e(name))</span>\(tag)"
      html += "<span class=\"what\">\(e(what))</span></td>"
      html += "<td class=\"number rate\">\(Percent.text(rate.value))</td>"
      html += "<td class=\"number\">\(Percent.interval(rate.interval))</td>"
      html += "<td class=\"number\">\(rate.count) / \(rate.of)</td></tr>\n"
    }
    row("bpcer", "BPCER", "bona fide presentations classified as attacks", point.bpcer)
    for species in point.species {
      row(
        "apcer:" + species.name, "APCER · " + species.name, "\(species.name) attacks classified as bona fide",
        point.apcer(species: species.name))
    }
    let worst = point.apcerMaxSpecies.map { "the highest of the species: \($0)" } ?? "the highest of the species: –"
    row("apcer_max", "APCER (max, reported)", worst, point.apcerMax)
    row("apnrr", "APNRR", "attack presentations with no response", point.apnrr)
    row("bpnrr", "BPNRR", "bona fide presentations with no response", point.bpnrr)
    let note = point.fields["acer_note"]?.stringValue ?? "not an ISO/IEC 30107-3 measure"
    html += "<tr data-measure=\"acer\"><td><span class=\"measure\">ACER</span>"
    html += " <span class=\"tag not-iso\">not a 30107-3 measure</span>"
    html += "<span class=\"what\">the mean of APCER (max) and BPCER; \(e(note))</span></td>"
    html += "<td class=\"number rate\">\(Percent.text(point.acer))</td><td class=\"number\">–</td>"
    html += "<td class=\"number\">–</td></tr>\n"
    return html + "</tbody>\n</table>\n</section>\n"
  }

  private func speciesSection(_ point: EvaluationPoint) -> String {
    var html = "<section class=\"species\">\n" + heading("APCER per species", point)
    guard !point.species.isEmpty else {
      let why = point.attack.total == 0 ? "The corpus has no attack presentations." : "No species of attack are named."
      return html + "<p class=\"empty\">\(why)</p>\n</section>\n"
    }
    var extent: [Double] = []
    let bars = point.species.map { species -> BarChart.Bar in
      let rate = point.apcer(species: species.name)
      extent += [rate.value, rate.interval?.high].compactMap { $0 }
      let counts = "\(rate.count) / \(rate.of)"
      var text = Percent.text(rate.value)
      if rate.interval != nil { text += "  (" + Percent.interval(rate.interval) + ")" }
      text += "  " + counts
      let tooltip =
        "\(species.name): APCER \(Percent.text(rate.value)), interval \(Percent.interval(rate.interval)), "
        + "\(rate.count) of \(rate.of) decided attacks accepted"
      return BarChart.Bar(
        label: species.name, value: rate.value, interval: rate.interval, text: text, tooltip: tooltip,
        highlighted: species.name == point.apcerMaxSpecies, key: species.name)
    }
    let axis = BarChart.rateAxis(extent)
    let chart = BarChart(
      kind: "species", description: "APCER per species with intervals", bars: bars, upper: axis.upper,
      ticks: axis.ticks)
    html += "<p class=\"legend\"><span class=\"key bar\"></span>APCER <span class=\"key bar highlighted\"></span>"
    html += "the reported one (the highest) <span class=\"key whisker\"></span>interval</p>\n"
    return html + "<div class=\"chart\">" + chart.svg() + "</div>\n</section>\n"
  }

  private func detSection(_ point: EvaluationPoint, scores: JSONObject) -> String {
    let plot = DETPlot(scores: scores)
    var html = "<section class=\"det-section\">\n" + heading("DET curve", point)
    html += "<p class=\"legend\">\(e(scoreName ?? "score"))"
    html += " · both axes on the normal-deviate scale; rates of 0 and 1 drawn at the axes' ends</p>\n"
    html += "<div class=\"det-figure\"><div class=\"chart\">" + plot.svg() + "</div>\n<dl class=\"facts\">\n"
    func fact(_ name: String, _ value: String) { html += "<div><dt>\(e(name))</dt><dd>\(e(value))</dd></div>\n" }
    var eer = Percent.text(scores["eer"]?.doubleValue)
    if let threshold = scores["eer_threshold"]?.doubleValue {
      eer += " at threshold " + ReportFormat.shortest(threshold)
    }
    fact("EER", eer)
    for (level, value) in scores["bpcer_at_apcer"]?.objectValue ?? JSONObject() {
      fact(
        "BPCER at APCER \(EvaluationPage.levelText(level))\(EvaluationPage.levelName("BPCER", level))",
        EvaluationPage.operatingPoint(value["bpcer"], value["threshold"]))
    }
    for (level, value) in scores["apcer_at_bpcer"]?.objectValue ?? JSONObject() {
      fact(
        "APCER (max) at BPCER \(EvaluationPage.levelText(level))",
        EvaluationPage.operatingPoint(value["apcer_max"], value["threshold"]))
    }
    fact("curve", "\(plot.curve.count) thresholds")
    return html + "</dl></div>\n</section>\n"
  }

  /// "5%" for the level "0.05".
  static func levelText(_ level: String) -> String {
    Double(level).map { Percent.text($0).replacingOccurrences(of: ".0%", with: "%") } ?? level
  }

  /// " (BPCER20)" for the level "0.05": the name 30107-3 gives BPCER at
  /// an APCER of 1/N.
  static func levelName(_ measure: String, _ level: String) -> String {
    guard let rate = Double(level), rate > 0 else { return "" }
    let inverse = (1 / rate).rounded()
    guard abs(inverse * rate - 1) < 1e-9, inverse < 1e6 else { return "" }
    return " (\(measure)\(Int(inverse)))"
  }

  static func operatingPoint(_ rate: JSONValue?, _ threshold: JSONValue?) -> String {
    var text = Percent.text(rate?.doubleValue)
    if let threshold = threshold?.doubleValue { text += " at threshold " + ReportFormat.shortest(threshold) }
    return text
  }

  private func failuresSection(_ point: EvaluationPoint) -> String {
    var html = "<section class=\"failures\">\n" + heading("Rejected bona fide presentations", point)
    let failures = (point.fields["rejected_bona_fide"]?.arrayValue ?? []).map { entry in
      (
        step: entry["step"].flatMap { $0 == .null ? nil : ReportFormat.cell($0) } ?? "(no step)",
        reason: entry["reason"].flatMap { $0 == .null ? nil : ReportFormat.cell($0) } ?? "(no reason)",
        count: entry["count"]?.integerValue.map { Int(clamping: $0) } ?? 0
      )
    }
    guard !failures.isEmpty else {
      let why =
        point.bonaFide.total == 0
        ? "The corpus has no bona fide presentations." : "No bona fide presentation was rejected."
      return html + "<p class=\"empty\">\(why)</p>\n</section>\n"
    }
    html += "<p class=\"legend\">by the step that failed and its reason</p>\n"
    let axis = BarChart.countAxis(failures.map(\.count).max() ?? 1)
    let bars = failures.map { failure in
      BarChart.Bar(
        label: failure.step + " · " + failure.reason, value: Double(failure.count), text: String(failure.count),
        tooltip: "\(failure.count) rejected at \(failure.step): \(failure.reason)",
        key: failure.step + "/" + failure.reason)
    }
    let chart = BarChart(
      kind: "failures", description: "rejected bona fide presentations by step and reason", bars: bars,
      upper: axis.upper, ticks: axis.ticks)
    return html + "<div class=\"chart\">" + chart.svg() + "</div>\n</section>\n"
  }

  private func acceptedSection(_ point: EvaluationPoint) -> String {
    let accepted = (point.fields["accepted_attacks"]?.arrayValue ?? []).map(ReportFormat.cell)
    var html = "<section class=\"accepted\">\n" + heading("Accepted attacks", point)
    guard !accepted.isEmpty else {
      let why = point.attack.total == 0 ? "The corpus has no attack presentations." : "No attack was accepted."
      return html + "<p class=\"empty\">\(why)</p>\n</section>\n"
    }
    html += "<ul class=\"ids\">\n"
    for id in accepted {
      if let link = options.sessionLinks[id] {
        html += "<li><a href=\"\(e(link))\">\(e(id))</a></li>\n"
      } else {
        html += "<li>\(e(id))</li>\n"
      }
    }
    return html + "</ul>\n</section>\n"
  }

  private func timeSection(_ point: EvaluationPoint) -> String {
    var html = "<section class=\"time\">\n" + heading("Time to decision", point)
    let times = point.fields["time_to_decision"]?.objectValue ?? JSONObject()
    guard !times.isEmpty else { return html + "<p class=\"empty\">No times to decision were given.</p>\n</section>\n" }
    html += "<table class=\"times\">\n<thead><tr><th>presentations</th><th class=\"number\">median</th>"
    html += "<th class=\"number\">95th percentile</th></tr></thead>\n<tbody>\n"
    func seconds(_ value: JSONValue?) -> String { value?.doubleValue.map { ReportFormat.fixed($0, 2) + " s" } ?? "–" }
    for (label, value) in times {
      html += "<tr data-label=\"\(e(label))\"><td>\(e(label.replacingOccurrences(of: "_", with: " ")))</td>"
      html += "<td class=\"number\">\(seconds(value["median"]))</td>"
      html += "<td class=\"number\">\(seconds(value["p95"]))</td></tr>\n"
    }
    return html + "</tbody>\n</table>\n</section>\n"
  }

  // MARK: Sessions

  private func appendSessionsSection(to html: inout String) {
    html += "<section id=\"sessions\">\n<h2>Sessions"
    let shown = evaluation.shownPoint
    if evaluation.isSweep, !evaluation.points.isEmpty {
      html += " <span class=\"at-point\" id=\"sessions-point\">at point \(shown)</span>"
    }
    html += "</h2>\n"
    guard !sessions.rows.isEmpty else {
      html += "<p class=\"empty\">No sessions were given.</p>\n</section>\n"
      return
    }
    var summary = "\(sessions.rows.count) sessions"
    if sessions.unplaced > 0 {
      summary += "; \(sessions.unplaced) records fit no point of the sweep, or repeat a session, and are not shown"
    }
    if !options.sessionLinks.isEmpty { summary += "; a session's id opens its own report" }
    html += "<p class=\"note\">\(e(summary)).</p>\n"
    html += "<form class=\"controls\" id=\"session-filters\" hidden>"
    func filter(_ name: String, _ title: String, _ values: [String]) {
      html += "<label>\(title) <select id=\"filter-\(name)\" name=\"\(name)\"><option value=\"\">all</option>"
      for value in values {
        html += "<option value=\"\(e(value))\">\(e(value.replacingOccurrences(of: "_", with: " ")))</option>"
      }
      html += "</select></label>"
    }
    filter("label", "label", sessions.values(\.label))
    filter("species", "species", sessions.values(\.species))
    filter("decision", "decision", sessions.decisions)
    html += "<span class=\"note\" id=\"session-count\"></span></form>\n"
    html += "<table id=\"session-table\">\n<thead><tr><th>id</th><th>label</th><th>species</th><th>decision</th>"
    html += "<th>reason</th><th>failed step</th><th class=\"number\">decided at (s)</th><th class=\"number\">score</th>"
    html += "</tr></thead>\n<tbody>\n"
    sessions.appendRows(point: shown, links: options.sessionLinks, to: &html)
    html += "</tbody>\n</table>\n"
    if sessions.pointCount > 1 {
      html += "<script type=\"application/json\" id=\"point-sessions\">"
      html += sessions.outcomesJSON()
      html += "</script>\n"
    }
    html += "</section>\n"
  }
}
