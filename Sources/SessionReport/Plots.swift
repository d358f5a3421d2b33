/// The horizontal layout every chart of the page shares, so that a time is
/// at the same x in the timeline and in every plot.
struct TimeScale {
  static let width = 960.0
  static let left = 64.0
  static let right = 16.0
  static var plotWidth: Double { width - left - right }

  let start: Double
  let end: Double
  let ticks: [Double]
  let decimals: Int

  init(start: Double, end: Double) {
    let end = end - start > 1e-9 ? end : start + 1
    self.start = start
    self.end = end
    let step = NiceScale.niceStep((end - start) / 10)
    ticks = NiceScale.ticks(from: start, to: end, step: step)
    decimals = NiceScale.decimals(step)
  }

  func x(_ t: Double) -> Double {
    TimeScale.left + (min(max(t, start), end) - start) / (end - start) * TimeScale.plotWidth
  }

  var left: Double { TimeScale.left }
  var right: Double { TimeScale.width - TimeScale.right }
}

/// Draws the timeline and the plots as inline SVG.
struct ChartRenderer {
  let time: TimeScale
  let steps: [Timeline.StepSpan]
  let statuses: [Timeline.Mark]

  // The plot's vertical layout.
  static let plotHeight = 184.0
  static let plotTop = 8.0
  static let plotBottom = 158.0

  private func c(_ value: Double) -> String { ReportFormat.coordinate(value) }

  private func stepEnd(_ span: Timeline.StepSpan) -> Double { span.end ?? time.end }

  /// Greedy rows for labels at `items` (x, width), so that labels in a row do not overlap.
  static func labelRows(_ items: [(x: Double, width: Double)], rows: Int) -> [Int?] {
    var ends = Array(repeating: -Double.infinity, count: max(1, rows))
    return items.map { item in
      // No free row: the mark keeps its tick and its tooltip, without a
      // label over another one (statuses that change faster than they read).
      guard let row = ends.firstIndex(where: { $0 + 4 <= item.x }) else { return nil }
      ends[row] = item.x + item.width
      return row
    }
  }

  /// `text` cut to fit in `width` px at `fontSize`, or nil when not even one letter fits.
  static func fitted(_ text: String, width: Double, fontSize: Double) -> String? {
    if ReportFormat.estimatedWidth(text, fontSize: fontSize) <= width { return text }
    let letters = Int(width / (fontSize * 0.6)) - 1
    guard letters >= 1 else { return nil }
    return String(text.prefix(letters)) + "…"
  }

  private func timeAxis(_ y: Double, into svg: inout String) {
    svg += "<line class=\"axis\" x1=\"\(c(time.left))\" y1=\"\(c(y))\" x2=\"\(c(time.right))\" y2=\"\(c(y))\"/>"
    for tick in time.ticks {
      let x = time.x(tick)
      svg += "<line class=\"tick\" x1=\"\(c(x))\" y1=\"\(c(y))\" x2=\"\(c(x))\" y2=\"\(c(y + 4))\"/>"
      svg += "<text class=\"tick-label\" x=\"\(c(x))\" y=\"\(c(y + 15))\" text-anchor=\"middle\">"
      svg += ReportFormat.fixed(tick, time.decimals) + "</text>"
    }
    svg += "<text class=\"axis-unit\" x=\"\(c(time.left - 16))\" y=\"\(c(y + 15))\" text-anchor=\"end\">t (s)</text>"
  }

  /// The run at a glance: step bars, status markers, hints and captures on one time axis.
  func lane(hints: [(t: Double, key: String, text: String)], captures: [(t: Double, name: String)]) -> String {
    let height = 150.0
    var svg =
      "<svg class=\"lane\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(c(TimeScale.width)) \(c(height))\""
    svg += " width=\"\(c(TimeScale.width))\" height=\"\(c(height))\" role=\"img\" aria-label=\"timeline\">"
    let rows: [(String, Double)] = [("steps", 21), ("status", 46), ("hints", 92), ("captures", 114)]
    for (label, y) in rows {
      svg += "<text class=\"row-label\" x=\"\(c(time.left - 8))\" y=\"\(c(y))\" text-anchor=\"end\">\(label)</text>"
    }
    // Steps.
    for span in steps {
      let x1 = time.x(span.start)
      let x2 = max(time.x(stepEnd(span)), x1 + 2)
      svg += "<rect class=\"step-bar \(span.state.rawValue)\" x=\"\(c(x1))\" y=\"6\" width=\"\(c(x2 - x1))\""
      svg += " height=\"22\" rx=\"3\" data-step=\"\(ReportFormat.escape(span.name))\">"
      svg += "<title>\(ReportFormat.escape(stepTitle(span)))</title></rect>"
      if let label = ChartRenderer.fitted(span.name, width: x2 - x1 - 6, fontSize: 11) {
        svg += "<text class=\"step-bar-label\" x=\"\(c(x1 + 4))\" y=\"21\">\(ReportFormat.escape(label))</text>"
      }
    }
    // Statuses: a tick on the row and the name beside it, in up to three rows.
    let statusRows = ChartRenderer.labelRows(
      statuses.map { (time.x($0.t), ReportFormat.estimatedWidth($0.label, fontSize: 10) + 6) }, rows: 3)
    for (mark, row) in zip(statuses, statusRows) {
      let x = time.x(mark.t)
      let y = 36 + Double(row ?? 0) * 13
      svg += "<g class=\"status-mark\" data-status=\"\(ReportFormat.escape(mark.label))\">"
      svg += "<title>\(ReportFormat.escape(markTitle(mark)))</title>"
      svg += "<line x1=\"\(c(x))\" y1=\"34\" x2=\"\(c(x))\" y2=\"\(c(y + 4))\"/>"
      if row != nil { svg += labelText(mark.label, x: x, y: y + 8, gap: 3, fontSize: 10) }
      svg += "</g>"
    }
    for hint in hints {
      let x = time.x(hint.t)
      svg += "<circle class=\"hint-mark\" cx=\"\(c(x))\" cy=\"88\" r=\"4\">"
      let title = ReportFormat.seconds(hint.t) + " s  " + hint.key + ": " + hint.text
      svg += "<title>\(ReportFormat.escape(title))</title></circle>"
    }
    for capture in captures {
      let x = time.x(capture.t)
      svg += "<g class=\"capture-mark\"><path d=\"M\(c(x)) 104 L\(c(x + 5)) 110 L\(c(x)) 116 L\(c(x - 5)) 110 Z\"/>"
      svg += labelText(capture.name, x: x, y: 114, gap: 7, fontSize: 10) + "</g>"
    }
    timeAxis(124, into: &svg)
    svg += "</svg>"
    return svg
  }

  /// A label right of `x`, or left of it when it would run past the plot's right edge.
  private func labelText(_ label: String, x: Double, y: Double, gap: Double, fontSize: Double) -> String {
    if x + gap + ReportFormat.estimatedWidth(label, fontSize: fontSize) > time.right {
      return "<text x=\"\(c(x - gap))\" y=\"\(c(y))\" text-anchor=\"end\">\(ReportFormat.escape(label))</text>"
    }
    return "<text x=\"\(c(x + gap))\" y=\"\(c(y))\">\(ReportFormat.escape(label))</text>"
  }

  private func stepTitle(_ span: Timeline.StepSpan) -> String {
    var title = "\(span.name): \(span.state.rawValue) \(ReportFormat.seconds(span.start))–"
    title += span.end.map(ReportFormat.seconds) ?? "end"
    if let reason = span.reason { title += " (\(reason))" }
    return title
  }

  private func markTitle(_ mark: Timeline.Mark) -> String {
    ReportFormat.seconds(mark.t) + " s  " + mark.label + (mark.detail.isEmpty ? "" : "  " + mark.detail)
  }

  /// One measurement over time: step bands, grid, threshold lines, status
  /// markers and the values, with a break where a frame has no value.
  func plot(_ series: Series, thresholds: [SessionReport.Threshold]) -> String {
    let values = series.present
    let limits = values + thresholds.map(\.value)
    // A little room above and below, so that no line runs along the frame
    // (but no negative values for a measurement that never goes below 0).
    var low = limits.min() ?? 0
    var high = limits.max() ?? 1
    let pad = (high - low) * 0.05
    high += pad
    low = low >= 0 ? max(0, low - pad) : low - pad
    let scale = NiceScale(low: low, high: high, count: 4)
    let top = ChartRenderer.plotTop
    let bottom = ChartRenderer.plotBottom
    func y(_ value: Double) -> Double { top + (scale.upper - value) / (scale.upper - scale.lower) * (bottom - top) }

    let height = ChartRenderer.plotHeight
    var svg =
      "<svg class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(c(TimeScale.width)) \(c(height))\""
    svg += " width=\"\(c(TimeScale.width))\" height=\"\(c(height))\" role=\"img\""
    svg += " aria-label=\"\(ReportFormat.escape(series.path)) over time\""
    svg += " data-series=\"\(ReportFormat.escape(series.path))\""
    svg += " data-y-min=\"\(ReportFormat.shortest(scale.lower))\" data-y-max=\"\(ReportFormat.shortest(scale.upper))\""
    svg += " data-plot-top=\"\(c(top))\" data-plot-bottom=\"\(c(bottom))\">"
    svg += "<rect class=\"area\" x=\"\(c(time.left))\" y=\"\(c(top))\" width=\"\(c(time.right - time.left))\""
    svg += " height=\"\(c(bottom - top))\"/>"
    // Steps, shaded from their start to their end.
    var stepLabels = ""
    for (index, span) in steps.enumerated() {
      let x1 = time.x(span.start)
      let x2 = max(time.x(stepEnd(span)), x1 + 1)
      svg += "<rect class=\"band \(span.state.rawValue)\(index % 2 == 1 ? " alternate" : "")\" x=\"\(c(x1))\""
      svg += " y=\"\(c(top))\" width=\"\(c(x2 - x1))\" height=\"\(c(bottom - top))\""
      svg +=
        " data-step=\"\(ReportFormat.escape(span.name))\"><title>\(ReportFormat.escape(stepTitle(span)))</title></rect>"
      if let label = ChartRenderer.fitted(span.name, width: x2 - x1 - 6, fontSize: 10) {
        stepLabels += "<text class=\"band-label \(span.state.rawValue)\" x=\"\(c(x1 + 3))\" y=\"\(c(bottom - 5))\">"
        stepLabels += ReportFormat.escape(label) + "</text>"
      }
    }
    // The value axis with its grid.
    for tick in scale.ticks {
      let ty = y(tick)
      svg += "<line class=\"grid\" x1=\"\(c(time.left))\" y1=\"\(c(ty))\" x2=\"\(c(time.right))\" y2=\"\(c(ty))\"/>"
      svg += "<text class=\"tick-label\" x=\"\(c(time.left - 6))\" y=\"\(c(ty + 3.5))\" text-anchor=\"end\">"
      svg += ReportFormat.fixed(tick, scale.decimals) + "</text>"
    }
    svg += "<line class=\"axis\" x1=\"\(c(time.left))\" y1=\"\(c(top))\" x2=\"\(c(time.left))\" y2=\"\(c(bottom))\"/>"
    timeAxis(bottom, into: &svg)
    // Thresholds: dashed, with the setting and its value.
    var previousLabelY: Double?
    var labelAtLeft = false
    for threshold in thresholds.sorted(by: { $0.value > $1.value }) {
      let ty = y(threshold.value)
      svg += "<g class=\"threshold\" data-setting=\"\(ReportFormat.escape(threshold.label))\""
      svg += " data-value=\"\(ReportFormat.shortest(threshold.value))\">"
      svg += "<line x1=\"\(c(time.left))\" y1=\"\(c(ty))\" x2=\"\(c(time.right))\" y2=\"\(c(ty))\"/>"
      if let previousLabelY, abs(previousLabelY - ty) < 11 { labelAtLeft.toggle() } else { labelAtLeft = false }
      previousLabelY = ty
      // "turn left: above 20" for a step's test, "hkid.flip_angle = 25" for a setting.
      let joiner = threshold.label.contains(": ") ? " " : " = "
      let text = threshold.label + joiner + ReportFormat.shortest(threshold.value)
      let labelY = ty - 3 < top + 9 ? ty + 10 : ty - 3
      if labelAtLeft {
        svg += "<text x=\"\(c(time.left + 4))\" y=\"\(c(labelY))\">\(ReportFormat.escape(text))</text></g>"
      } else {
        svg += "<text x=\"\(c(time.right - 4))\" y=\"\(c(labelY))\" text-anchor=\"end\">"
        svg += ReportFormat.escape(text) + "</text></g>"
      }
    }
    // The values: one path, a new subpath after every gap; lone points as dots.
    var path: [String] = []
    var dots = ""
    for segment in series.segments {
      if segment.count == 1, let point = segment.first {
        dots += "<circle class=\"point\" cx=\"\(c(time.x(point.t)))\" cy=\"\(c(y(point.value)))\" r=\"2\"/>"
      }
      path.append(
        segment.enumerated().map { index, point in
          (index == 0 ? "M" : "L") + c(time.x(point.t)) + " " + c(y(point.value))
        }.joined(separator: " "))
    }
    svg += "<path class=\"series\" d=\"\(path.joined(separator: " "))\"/>" + dots
    // Statuses: a short tick at the top and the name, in two rows.
    let rows = ChartRenderer.labelRows(
      statuses.map { (time.x($0.t), ReportFormat.estimatedWidth($0.label, fontSize: 9) + 5) }, rows: 2)
    for (mark, row) in zip(statuses, rows) {
      let x = time.x(mark.t)
      svg += "<g class=\"status-mark\" data-status=\"\(ReportFormat.escape(mark.label))\">"
      svg += "<title>\(ReportFormat.escape(markTitle(mark)))</title>"
      svg += "<line x1=\"\(c(x))\" y1=\"\(c(top))\" x2=\"\(c(x))\" y2=\"\(c(top + 7 + Double(row ?? 0) * 10))\"/>"
      if let row { svg += labelText(mark.label, x: x, y: top + 8 + Double(row) * 10, gap: 2, fontSize: 9) }
      svg += "</g>"
    }
    svg += stepLabels + "</svg>"
    return svg
  }
}
