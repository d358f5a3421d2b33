import Foundation
import JSONCore

/// Builds the HTML page of one run.
struct PageBuilder {
  let input: SessionReport.Input
  let timeline: Timeline
  let time: TimeScale
  let plotted: [Series]
  let thresholds: [SessionReport.Threshold]

  /// Images larger than this are named, not embedded.
  static let maximumImageBytes = 16 << 20

  init(input: SessionReport.Input) {
    self.input = input
    timeline = Timeline(events: input.events)
    let all = SeriesSelection.allSeries(input.frames)
    let present = Set(all.map(\.path))
    // The lines the flow's own steps and watchers test (their step and
    // session events say so); a setting's name only guesses where the steps
    // do not say, such as a value function's limit.
    let tested = PageBuilder.testedThresholds(input.events)
    let testedPaths = Set(tested.map(\.path))
    let ruled = ThresholdRule.thresholds(for: input.settings, rules: input.thresholdRules, series: present)
      .filter { !testedPaths.contains($0.path) }
    let chosen = (input.thresholds + tested + ruled).filter { present.contains($0.path) }
    // One line per (measurement, value, label), in the order given.
    var seen = Set<String>()
    thresholds = chosen.filter { seen.insert("\($0.path)\u{0}\($0.value)\u{0}\($0.label)").inserted }
    plotted = SeriesSelection.select(all, thresholdPaths: Set(thresholds.map(\.path)), limit: input.maximumPlots)
    var low = all.first?.times.first
    var high = all.first?.times.last
    if let range = timeline.timeRange {
      low = min(low ?? range.lowerBound, range.lowerBound)
      high = max(high ?? range.upperBound, range.upperBound)
    }
    time = TimeScale(start: low ?? 0, end: high ?? 1)
  }

  /// The number tests of the run's steps (`thresholds` of their `started`
  /// events) and watchers (of the `session` event), labelled by who tests.
  static func testedThresholds(_ events: [JSONValue]) -> [SessionReport.Threshold] {
    var lines: [SessionReport.Threshold] = []
    func add(_ list: [JSONValue], owner: (JSONValue) -> String) {
      for item in list {
        guard let field = item["field"]?.stringValue else { continue }
        for kind in ["above", "below", "min", "max"] {
          if let value = item[kind]?.doubleValue {
            lines.append(SessionReport.Threshold(path: field, value: value, label: "\(owner(item)): \(kind)"))
          }
        }
      }
    }
    for event in events {
      switch event["type"]?.stringValue {
      case "step" where event["state"]?.stringValue == "started":
        let name = event["name"]?.stringValue ?? "step"
        add(event["thresholds"]?.arrayValue ?? []) { _ in name }
      case "session":
        add(event["thresholds"]?.arrayValue ?? []) { $0["watcher"]?.stringValue ?? "watch" }
      default: break
      }
    }
    return lines
  }

  private var flowName: String {
    input.flowName ?? timeline.session?["flow"]?.stringValue ?? "flow"
  }

  private var flowFile: String? {
    input.flowFile ?? timeline.session?["file"]?.stringValue
  }

  enum Verdict: String {
    case passed, failed, error, unknown

    var text: String {
      switch self {
      case .passed: return "PASSED"
      case .failed: return "FAILED"
      case .error: return "ERROR"
      case .unknown: return "NO RESULT"
      }
    }
  }

  var verdict: Verdict {
    guard let result = timeline.result else { return .unknown }
    if result["success"]?.boolValue == true { return .passed }
    if let code = result["code"]?.integerValue, code < 0 { return .error }
    return .failed
  }

  func page() -> String {
    var html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    html += "<meta name=\"generator\" content=\"workbench session report\">\n"
    html += "<title>\(ReportFormat.escape("\(flowName): \(verdict.text)")) · workbench session report</title>\n"
    html += "<style>\n\(PageBuilder.stylesheet)</style>\n</head>\n<body>\n"
    html += header()
    html += timelineSection()
    html += hintsSection()
    html += capturesSection()
    if !timeline.comparisons.isEmpty { html += facesSection() }
    html += notesSection()
    html += resultSection()
    html += settingsSection()
    html += "<footer>workbench session report"
    if let version = timeline.session?["workbench"]?.stringValue {
      html += " · workbench \(ReportFormat.escape(version))"
    }
    html += "</footer>\n</body>\n</html>\n"
    return html
  }

  // MARK: Header

  private func header() -> String {
    let result = timeline.result
    var html = "<header class=\"top\">\n<div class=\"title\"><h1>\(ReportFormat.escape(flowName))</h1>"
    if let flowFile { html += "<p class=\"file\">\(ReportFormat.escape(flowFile))</p>" }
    html +=
      "</div>\n<div class=\"badge \(verdict.rawValue)\" id=\"verdict\"><span class=\"verdict\">\(verdict.text)</span>"
    if let result {
      let code = result["code"].map(ReportFormat.cell) ?? "–"
      let reason = result["reason"].map(ReportFormat.cell) ?? "–"
      html += "<span class=\"code\">code \(ReportFormat.escape(code)) · \(ReportFormat.escape(reason))</span>"
    }
    html += "</div>\n</header>\n"
    if let message = result?["message"].map(ReportFormat.cell) {
      html += "<p class=\"message \(verdict.rawValue)\">\(ReportFormat.escape(message))</p>\n"
    }
    if let error = result?["error"].map(ReportFormat.cell) {
      html += "<p class=\"error-text\"><code>\(ReportFormat.escape(error))</code></p>\n"
    }
    var facts: [(String, String)] = []
    if let source = timeline.session?["input"]?.objectValue {
      var text = source["name"].map(ReportFormat.cell) ?? ""
      if let kind = source["kind"].map(ReportFormat.cell) { text += " (\(kind))" }
      if let width = source["width"], let height = source["height"] {
        text += ", \(ReportFormat.cell(width))×\(ReportFormat.cell(height))"
      }
      if let fps = source["fps"] { text += ", \(ReportFormat.cell(fps)) fps" }
      facts.append(("input", text))
    }
    if let duration = result?["duration"]?.doubleValue {
      facts.append(("duration", ReportFormat.shortest(duration) + " s"))
    } else {
      facts.append(("duration", ReportFormat.shortest(time.end - time.start) + " s (from the frames)"))
    }
    if let frames = result?["frames"] {
      facts.append(("frames", ReportFormat.cell(frames)))
    } else if !input.frames.isEmpty {
      facts.append(("frames", "\(input.frames.count)"))
    }
    if let passed = result?["steps_passed"], let steps = result?["steps"] {
      facts.append(("steps passed", "\(ReportFormat.cell(passed)) of \(ReportFormat.cell(steps))"))
    }
    for (key, label) in [("seed", "seed"), ("lang", "language"), ("time_limit", "time limit")] {
      guard let value = timeline.session?[key] else { continue }
      if key == "time_limit" {
        facts.append((label, value.doubleValue == 0 ? "none" : ReportFormat.cell(value) + " s"))
      } else {
        facts.append((label, ReportFormat.cell(value)))
      }
    }
    if let order = timeline.session?["order"]?.arrayValue {
      facts.append(("order", order.map(ReportFormat.cell).joined(separator: " → ")))
    }
    for key in ["frames_skipped", "frames_dropped"] {
      if let value = result?[key] {
        facts.append((key.replacingOccurrences(of: "_", with: " "), ReportFormat.cell(value)))
      }
    }
    html += "<dl class=\"facts\">\n"
    for (name, value) in facts {
      html += "<div><dt>\(ReportFormat.escape(name))</dt><dd>\(ReportFormat.escape(value))</dd></div>\n"
    }
    html += "</dl>\n"
    return html
  }

  // MARK: Timeline and plots

  private func timelineSection() -> String {
    let renderer = ChartRenderer(time: time, steps: timeline.steps, statuses: timeline.statuses)
    var html = "<section id=\"timeline\">\n<h2>Timeline</h2>\n"
    html += "<p class=\"legend\"><span class=\"key passed\"></span>step passed <span class=\"key failed\"></span>"
    html += "step failed <span class=\"key open\"></span>step unfinished <span class=\"key threshold\"></span>"
    html +=
      "threshold (a step's test, or a setting) <span class=\"key status\"></span>status <span class=\"key hint\"></span>hint</p>\n"
    let hints = timeline.hints.map { hint in
      (
        t: hint["t"]?.doubleValue ?? 0, key: hint["key"].map(ReportFormat.cell) ?? "",
        text: hint["text"].map(ReportFormat.cell) ?? ""
      )
    }
    let captures = timeline.captures.compactMap { capture in capture.t.map { (t: $0, name: capture.name) } }
    html += "<div class=\"chart\">" + renderer.lane(hints: hints, captures: captures) + "</div>\n"
    if plotted.isEmpty {
      html += "<p class=\"empty\">No measurements to plot: no frames were given.</p>\n"
    }
    for series in plotted {
      let lines = thresholds.filter { $0.path == series.path }
      let present = series.present
      html += "<figure class=\"plot-figure\" id=\"plot-\(ReportFormat.escape(series.path))\">"
      html += "<figcaption><span class=\"series-name\">\(ReportFormat.escape(series.path))</span>"
      if let low = present.min(), let high = present.max() {
        let range = ReportFormat.shortest(low) + " … " + ReportFormat.shortest(high)
        html += "<span class=\"range\">\(ReportFormat.escape(range))"
        html += ", \(present.count) of \(series.values.count) frames</span>"
      }
      html += "</figcaption>\n<div class=\"chart\">" + renderer.plot(series, thresholds: lines) + "</div></figure>\n"
    }
    html += "</section>\n"
    return html
  }

  // MARK: Tables

  private func table(id: String, title: String, headers: [String], rows: [[String]], empty: String) -> String {
    var html = "<section id=\"\(id)\">\n<h2>\(ReportFormat.escape(title))</h2>\n"
    guard !rows.isEmpty else { return html + "<p class=\"empty\">\(ReportFormat.escape(empty))</p>\n</section>\n" }
    html +=
      "<table>\n<thead><tr>" + headers.map { "<th>\(ReportFormat.escape($0))</th>" }.joined()
      + "</tr></thead>\n<tbody>\n"
    for row in rows {
      html += "<tr>" + row.map { "<td>\(ReportFormat.escape($0))</td>" }.joined() + "</tr>\n"
    }
    return html + "</tbody>\n</table>\n</section>\n"
  }

  private func hintsSection() -> String {
    let rows = timeline.hints.map { hint -> [String] in
      [
        hint["t"]?.doubleValue.map(ReportFormat.seconds) ?? "", hint["key"].map(ReportFormat.cell) ?? "",
        hint["text"].map(ReportFormat.cell) ?? "", hint["lang"].map(ReportFormat.cell) ?? "",
        hint["params"].map(ReportFormat.cell) ?? "",
      ]
    }
    return table(
      id: "hints", title: "Hints as shown", headers: ["t (s)", "key", "text", "language", "params"], rows: rows,
      empty: "No hints were shown.")
  }

  private func notesSection() -> String {
    let rows = timeline.notes.map { note -> [String] in
      let type = note["type"].map(ReportFormat.cell) ?? ""
      let name = type == "status" ? note["status"].map(ReportFormat.cell) ?? "" : type
      return [
        note["t"]?.doubleValue.map(ReportFormat.seconds) ?? "", note["frame"].map(ReportFormat.cell) ?? "", name,
        Timeline.fields(note),
      ]
    }
    return table(
      id: "statuses", title: "Statuses and intermediate results", headers: ["t (s)", "frame", "event", "fields"],
      rows: rows, empty: "No statuses were reported.")
  }

  private func resultSection() -> String {
    let rows = (timeline.result ?? JSONObject()).map { [$0.key, ReportFormat.cell($0.value)] }
    return table(
      id: "result", title: "Result", headers: ["field", "value"], rows: rows,
      empty: "The events have no result: the run did not finish.")
  }

  private func settingsSection() -> String {
    let rows = input.settings.map { setting -> [String] in
      let drawn = thresholds.filter { $0.label == setting.key }.map(\.path)
      var unique: [String] = []
      for path in drawn where !unique.contains(path) { unique.append(path) }
      return [setting.key, ReportFormat.cell(setting.value), setting.source, unique.joined(separator: ", ")]
    }
    return table(
      id: "settings", title: "Settings", headers: ["key", "value", "source", "drawn on"], rows: rows,
      empty: "No settings were given.")
  }

  // MARK: Key frames

  private func capturesSection() -> String {
    var html = "<section id=\"captures\">\n<h2>Key frames</h2>\n"
    guard !timeline.captures.isEmpty else {
      return html + "<p class=\"empty\">The flow captured no frames.</p>\n</section>\n"
    }
    html += "<div class=\"shots\">\n"
    let failed = verdict == .failed || verdict == .error
    for (index, capture) in timeline.captures.enumerated() {
      let last = failed && index == timeline.captures.count - 1
      html +=
        "<div class=\"capture\(last ? " at-failure" : "")\" data-capture=\"\(ReportFormat.escape(capture.name))\">"
      html += "<h3>\(ReportFormat.escape(capture.name))"
      if let t = capture.t { html += " <span class=\"when\">t \(ReportFormat.seconds(t)) s</span>" }
      if let frame = capture.frame { html += " <span class=\"when\">frame \(frame)</span>" }
      if last { html += " <span class=\"tag\">last capture before the failure</span>" }
      html += "</h3>\n"
      if capture.images.isEmpty {
        html += "<p class=\"no-image\">No images were kept (a trace as the input, or no --artifacts).</p>"
      }
      for image in capture.images {
        html += "<figure class=\"shot\">"
        switch loadImage(image.path) {
        case .success(let (mime, bytes)):
          html += "<img src=\"data:\(mime);base64,\(Data(bytes).base64EncodedString())\""
          html += " alt=\"\(ReportFormat.escape(capture.name + " " + image.kind))\">"
        case .failure(let problem):
          html += "<div class=\"missing\">\(ReportFormat.escape(problem.text))</div>"
        }
        html += "<figcaption>\(ReportFormat.escape(image.kind)) · "
        html += "<code>\(ReportFormat.escape(image.path))</code></figcaption>"
        html += "</figure>\n"
      }
      html += "</div>\n"
    }
    return html + "</div>\n</section>\n"
  }

  // MARK: Face comparisons

  /// Each comparison's faces side by side (the live face and the enrolled
  /// one, or the card's portrait), with the distance and the verdict.
  private func facesSection() -> String {
    var html = "<section id=\"faces\">\n<h2>Face comparisons</h2>\n<div class=\"shots\">\n"
    for comparison in timeline.comparisons {
      let operation = comparison["operation"]?.stringValue ?? "compare"
      let matched = comparison["match"]?.boolValue == true
      let distance =
        comparison["distance"]?.doubleValue ?? comparison["candidates"]?.arrayValue?.first?["distance"]?.doubleValue
      let threshold = comparison["threshold"]?.doubleValue
      html +=
        "<div class=\"comparison\(matched ? "" : " at-failure")\" data-operation=\"\(ReportFormat.escape(operation))\">"
      html += "<h3>\(ReportFormat.escape(operation))"
      if let user = comparison["user"]?.stringValue { html += " · \(ReportFormat.escape(user))" }
      if let t = comparison["t"]?.doubleValue { html += " <span class=\"when\">t \(ReportFormat.seconds(t)) s</span>" }
      html += " <span class=\"tag\">\(matched ? "match" : "no match")</span></h3>\n"
      html += "<p class=\"distance\">distance <strong>\(distance.map { String(format: "%.4f", $0) } ?? "?")</strong>"
      if let threshold { html += " · threshold \(String(format: "%.2f", threshold))" }
      if let error = comparison["error"]?.stringValue { html += " · \(ReportFormat.escape(error))" }
      html += "</p>\n"
      let images = comparison["images"]?.objectValue ?? JSONObject()
      if images.isEmpty {
        html += "<p class=\"no-image\">No faces were kept (run with --artifacts to see them here).</p>"
      }
      for (role, value) in images {
        guard let path = value.stringValue else { continue }
        html += "<figure class=\"shot face\">"
        switch loadImage(path) {
        case .success(let (mime, bytes)):
          html += "<img src=\"data:\(mime);base64,\(Data(bytes).base64EncodedString())\""
          html += " alt=\"\(ReportFormat.escape(role))\">"
        case .failure(let problem):
          html += "<div class=\"missing\">\(ReportFormat.escape(problem.text))</div>"
        }
        html += "<figcaption>\(ReportFormat.escape(role))</figcaption></figure>\n"
      }
      html += "</div>\n"
    }
    return html + "</div>\n</section>\n"
  }

  struct ImageProblem: Error {
    var text: String
  }

  /// The image's type and bytes, found as given or in one of the image folders.
  func loadImage(_ path: String) -> Result<(String, [UInt8]), ImageProblem> {
    // As given (from the run's folder), else by its name beside the events.
    let name = (path as NSString).lastPathComponent
    let candidates =
      path.hasPrefix("/")
      ? [path]
      : input.imageFolders.map { ($0 as NSString).appendingPathComponent(path) }
        + input.imageFolders.map { ($0 as NSString).appendingPathComponent(name) }
    for candidate in candidates {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue else {
        continue
      }
      let size = (try? FileManager.default.attributesOfItem(atPath: candidate)[.size] as? Int) ?? 0
      guard size <= PageBuilder.maximumImageBytes else {
        return .failure(ImageProblem(text: "too large to embed (\(size) bytes)"))
      }
      guard let data = FileManager.default.contents(atPath: candidate) else {
        return .failure(ImageProblem(text: "cannot be read"))
      }
      let bytes = [UInt8](data)
      if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .success(("image/jpeg", bytes)) }
      if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return .success(("image/png", bytes)) }
      return .failure(ImageProblem(text: "not a JPEG or PNG image"))
    }
    return .failure(ImageProblem(text: "image not found"))
  }
}
