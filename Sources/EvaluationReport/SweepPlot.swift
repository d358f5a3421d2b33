import SessionReport

/// The points of a sweep as APCER (max) across and BPCER up: each point a
/// circle with its settings in its tooltip, the Pareto front joined by a
/// line, the chosen point ringed and the target APCER as a dashed line.
struct SweepPlot {
  let evaluation: Evaluation

  static let width = 960.0
  static let height = 400.0
  static let left = 72.0
  static let right = 936.0
  static let top = 16.0
  static let bottom = 352.0

  private func c(_ value: Double) -> String { ReportFormat.coordinate(value) }

  /// Points with both rates; the others cannot be placed.
  var placed: [(point: EvaluationPoint, apcer: Double, bpcer: Double)] {
    evaluation.points.compactMap { point in
      guard let apcer = point.apcerMax.value, let bpcer = point.bpcer.value else { return nil }
      return (point, apcer, bpcer)
    }
  }

  private static func scale(_ highest: Double) -> NiceScale {
    var scale = NiceScale(low: 0, high: max(min(highest, 1), 0.01), count: 5)
    scale.upper = min(scale.upper, 1)
    return scale
  }

  func svg() -> String {
    let placed = placed
    let xScale = SweepPlot.scale(max(placed.map(\.apcer).max() ?? 0, evaluation.targetAPCER ?? 0))
    let yScale = SweepPlot.scale(placed.map(\.bpcer).max() ?? 0)
    func x(_ rate: Double) -> Double {
      SweepPlot.left + min(max(rate / xScale.upper, 0), 1) * (SweepPlot.right - SweepPlot.left)
    }
    func y(_ rate: Double) -> Double {
      SweepPlot.bottom - min(max(rate / yScale.upper, 0), 1) * (SweepPlot.bottom - SweepPlot.top)
    }
    var svg = "<svg class=\"plot sweep\" xmlns=\"http://www.w3.org/2000/svg\""
    svg += " viewBox=\"0 0 \(c(SweepPlot.width)) \(c(SweepPlot.height))\" width=\"\(c(SweepPlot.width))\""
    svg += " height=\"\(c(SweepPlot.height))\" role=\"img\" aria-label=\"APCER (max) and BPCER of every point\">"
    svg += "<rect class=\"area\" x=\"\(c(SweepPlot.left))\" y=\"\(c(SweepPlot.top))\""
    svg += " width=\"\(c(SweepPlot.right - SweepPlot.left))\" height=\"\(c(SweepPlot.bottom - SweepPlot.top))\"/>"
    for tick in xScale.ticks where tick <= xScale.upper + 1e-12 {
      let tx = x(tick)
      svg += "<line class=\"grid\" x1=\"\(c(tx))\" y1=\"\(c(SweepPlot.top))\" x2=\"\(c(tx))\""
      svg += " y2=\"\(c(SweepPlot.bottom))\"/>"
      svg += "<text class=\"tick-label\" x=\"\(c(tx))\" y=\"\(c(SweepPlot.bottom + 15))\" text-anchor=\"middle\">"
      svg += Percent.tick(tick, decimals: xScale.decimals) + "</text>"
    }
    for tick in yScale.ticks where tick <= yScale.upper + 1e-12 {
      let ty = y(tick)
      svg += "<line class=\"grid\" x1=\"\(c(SweepPlot.left))\" y1=\"\(c(ty))\" x2=\"\(c(SweepPlot.right))\""
      svg += " y2=\"\(c(ty))\"/>"
      svg += "<text class=\"tick-label\" x=\"\(c(SweepPlot.left - 6))\" y=\"\(c(ty + 3.5))\" text-anchor=\"end\">"
      svg += Percent.tick(tick, decimals: yScale.decimals) + "</text>"
    }
    svg += "<line class=\"axis\" x1=\"\(c(SweepPlot.left))\" y1=\"\(c(SweepPlot.bottom))\""
    svg += " x2=\"\(c(SweepPlot.right))\" y2=\"\(c(SweepPlot.bottom))\"/>"
    svg += "<line class=\"axis\" x1=\"\(c(SweepPlot.left))\" y1=\"\(c(SweepPlot.top))\""
    svg += " x2=\"\(c(SweepPlot.left))\" y2=\"\(c(SweepPlot.bottom))\"/>"
    let middle = (SweepPlot.left + SweepPlot.right) / 2
    svg += "<text class=\"axis-title\" x=\"\(c(middle))\" y=\"\(c(SweepPlot.bottom + 36))\" text-anchor=\"middle\">"
    svg += "APCER (max)</text>"
    let centre = (SweepPlot.top + SweepPlot.bottom) / 2
    svg += "<text class=\"axis-title\" x=\"16\" y=\"\(c(centre))\" text-anchor=\"middle\""
    svg += " transform=\"rotate(-90 16 \(c(centre)))\">BPCER</text>"
    if let target = evaluation.targetAPCER, target <= xScale.upper {
      let tx = x(target)
      svg += "<g class=\"target\"><line x1=\"\(c(tx))\" y1=\"\(c(SweepPlot.top))\" x2=\"\(c(tx))\""
      svg += " y2=\"\(c(SweepPlot.bottom))\"/><text x=\"\(c(tx + 4))\" y=\"\(c(SweepPlot.top + 10))\">"
      svg += "target APCER " + Percent.text(target) + "</text></g>"
    }
    // The front, from the lowest APCER to the highest: each point on it is
    // better than every other point in one of the two rates.
    let front = placed.filter { evaluation.front.contains($0.point.index) }
      .sorted { ($0.apcer, $0.bpcer, $0.point.index) < ($1.apcer, $1.bpcer, $1.point.index) }
    if front.count > 1 {
      let points = front.map { c(x($0.apcer)) + "," + c(y($0.bpcer)) }.joined(separator: " ")
      svg += "<polyline class=\"front\" points=\"\(points)\"/>"
    }
    for entry in placed {
      let index = entry.point.index
      var classes = "sweep-point"
      if evaluation.front.contains(index) { classes += " front-point" }
      if index == evaluation.shownPoint { classes += " selected" }
      svg += "<circle class=\"\(classes)\" data-point=\"\(index)\" cx=\"\(c(x(entry.apcer)))\""
      svg += " cy=\"\(c(y(entry.bpcer)))\" r=\"5\"><title>"
      svg += ReportFormat.escape(tooltip(entry.point)) + "</title></circle>"
    }
    if let chosen = evaluation.chosen, let entry = placed.first(where: { $0.point.index == chosen }) {
      let cx = x(entry.apcer)
      let cy = y(entry.bpcer)
      svg += "<circle class=\"chosen-marker\" data-point=\"\(chosen)\" cx=\"\(c(cx))\" cy=\"\(c(cy))\" r=\"10\"/>"
      let anchor = cx > SweepPlot.right - 60 ? "end" : "start"
      let labelX = anchor == "end" ? cx - 13 : cx + 13
      svg += "<text class=\"chosen-label\" x=\"\(c(labelX))\" y=\"\(c(cy - 8))\" text-anchor=\"\(anchor)\">"
      svg += "chosen</text>"
    }
    return svg + "</svg>"
  }

  func tooltip(_ point: EvaluationPoint) -> String {
    var lines = ["point \(point.index)"]
    let settings = point.settings
    let keys = evaluation.sweepKeys.isEmpty ? settings.keys : evaluation.sweepKeys
    for key in keys { lines.append(key + " = " + (settings[key].map(ReportFormat.cell) ?? "–")) }
    lines.append("APCER (max) " + Percent.text(point.apcerMax.value) + ", BPCER " + Percent.text(point.bpcer.value))
    if evaluation.front.contains(point.index) { lines.append("on the front") }
    if evaluation.chosen == point.index { lines.append("chosen") }
    return lines.joined(separator: "\n")
  }
}
