import JSONCore
import SessionReport

/// The DET curve of a score: APCER (max) across and BPCER up, both on the
/// normal-deviate scale as DET plots are drawn, so that the curve of normally
/// distributed scores is straight and the low rates that matter are spread
/// out. The EER and BPCER20/BPCER100 are marked on it.
struct DETPlot {
  struct Point {
    var apcer: Double
    var bpcer: Double
    var threshold: Double?
  }

  /// The curve, in the order summary.json gives it (by threshold).
  let curve: [Point]
  let eer: Double?
  /// BPCER at APCER 5% and 1%: BPCER20 and BPCER100.
  let bpcer20: Double?
  let bpcer100: Double?

  init(scores: JSONObject) {
    curve = (scores["det"]?.arrayValue ?? []).compactMap { entry in
      guard let apcer = entry["apcer_max"]?.doubleValue, let bpcer = entry["bpcer"]?.doubleValue else { return nil }
      return Point(apcer: apcer, bpcer: bpcer, threshold: entry["threshold"]?.doubleValue)
    }
    eer = scores["eer"]?.doubleValue
    bpcer20 = scores["bpcer_at_apcer"]?["0.05"]?["bpcer"]?.doubleValue
    bpcer100 = scores["bpcer_at_apcer"]?["0.01"]?["bpcer"]?.doubleValue
  }

  /// The axes' ends: rates beyond them, 0 and 1 among them (which have no
  /// deviate), are drawn on the end they pass.
  static let lowestRate = 0.0005
  static let highestRate = 0.95
  static let ticks: [(rate: Double, label: String)] = [
    (0.001, "0.1%"), (0.01, "1%"), (0.05, "5%"), (0.2, "20%"), (0.5, "50%"), (0.8, "80%"),
  ]

  static let width = 540.0
  static let height = 470.0
  static let left = 72.0
  static let top = 16.0
  static let side = 400.0
  static var right: Double { left + side }
  static var bottom: Double { top + side }

  private static let lowestDeviate = NormalDeviate.of(lowestRate)
  private static let deviateRange = NormalDeviate.of(highestRate) - lowestDeviate

  /// Where `rate` falls along an axis, from 0 at its low end to 1 at its high end.
  static func position(_ rate: Double) -> Double {
    let clipped = min(max(rate, lowestRate), highestRate)
    return (NormalDeviate.of(clipped) - lowestDeviate) / deviateRange
  }

  static func x(_ apcer: Double) -> Double { left + position(apcer) * side }
  static func y(_ bpcer: Double) -> Double { bottom - position(bpcer) * side }

  private func c(_ value: Double) -> String { ReportFormat.coordinate(value) }

  func svg() -> String {
    typealias Plot = DETPlot
    var svg = "<svg class=\"plot det\" xmlns=\"http://www.w3.org/2000/svg\""
    svg += " viewBox=\"0 0 \(c(Plot.width)) \(c(Plot.height))\" width=\"\(c(Plot.width))\" height=\"\(c(Plot.height))\""
    svg += " role=\"img\" aria-label=\"DET curve\">"
    svg += "<rect class=\"area\" x=\"\(c(Plot.left))\" y=\"\(c(Plot.top))\" width=\"\(c(Plot.side))\""
    svg += " height=\"\(c(Plot.side))\"/>"
    for tick in Plot.ticks {
      let tx = Plot.x(tick.rate)
      let ty = Plot.y(tick.rate)
      svg += "<line class=\"grid\" x1=\"\(c(tx))\" y1=\"\(c(Plot.top))\" x2=\"\(c(tx))\" y2=\"\(c(Plot.bottom))\"/>"
      svg += "<line class=\"grid\" x1=\"\(c(Plot.left))\" y1=\"\(c(ty))\" x2=\"\(c(Plot.right))\" y2=\"\(c(ty))\"/>"
      svg += "<text class=\"tick-label det-tick\" x=\"\(c(tx))\" y=\"\(c(Plot.bottom + 15))\" text-anchor=\"middle\">"
      svg += tick.label + "</text>"
      svg += "<text class=\"tick-label det-tick\" x=\"\(c(Plot.left - 6))\" y=\"\(c(ty + 3.5))\" text-anchor=\"end\">"
      svg += tick.label + "</text>"
    }
    svg += "<line class=\"axis\" x1=\"\(c(Plot.left))\" y1=\"\(c(Plot.bottom))\" x2=\"\(c(Plot.right))\""
    svg += " y2=\"\(c(Plot.bottom))\"/>"
    svg += "<line class=\"axis\" x1=\"\(c(Plot.left))\" y1=\"\(c(Plot.top))\" x2=\"\(c(Plot.left))\""
    svg += " y2=\"\(c(Plot.bottom))\"/>"
    let middle = Plot.left + Plot.side / 2
    svg += "<text class=\"axis-title\" x=\"\(c(middle))\" y=\"\(c(Plot.bottom + 36))\" text-anchor=\"middle\">"
    svg += "APCER (max)</text>"
    let centre = Plot.top + Plot.side / 2
    svg += "<text class=\"axis-title\" x=\"16\" y=\"\(c(centre))\" text-anchor=\"middle\""
    svg += " transform=\"rotate(-90 16 \(c(centre)))\">BPCER</text>"
    // Where APCER equals BPCER: the curve crosses it at the EER.
    svg += "<line class=\"diagonal\" x1=\"\(c(Plot.left))\" y1=\"\(c(Plot.bottom))\" x2=\"\(c(Plot.right))\""
    svg += " y2=\"\(c(Plot.top))\"/>"
    var points = ""
    points.reserveCapacity(curve.count * 12)
    for (index, point) in curve.enumerated() {
      if index > 0 { points += " " }
      points += c(Plot.x(point.apcer)) + "," + c(Plot.y(point.bpcer))
    }
    svg += "<polyline class=\"det-curve\" points=\"\(points)\"/>"
    if curve.count == 1, let point = curve.first {
      svg += "<circle class=\"det-dot\" cx=\"\(c(Plot.x(point.apcer)))\" cy=\"\(c(Plot.y(point.bpcer)))\" r=\"3\"/>"
    }
    if let eer {
      svg += marker(kind: "eer-marker", apcer: eer, bpcer: eer, label: "EER " + Percent.text(eer))
    }
    if let bpcer20 {
      svg += marker(kind: "operating-point", apcer: 0.05, bpcer: bpcer20, label: "BPCER20 " + Percent.text(bpcer20))
    }
    if let bpcer100 {
      svg += marker(kind: "operating-point", apcer: 0.01, bpcer: bpcer100, label: "BPCER100 " + Percent.text(bpcer100))
    }
    return svg + "</svg>"
  }

  private func marker(kind: String, apcer: Double, bpcer: Double, label: String) -> String {
    let cx = DETPlot.x(apcer)
    let cy = DETPlot.y(bpcer)
    var svg = "<g class=\"\(kind)\"><title>\(ReportFormat.escape(label))</title>"
    svg += "<circle cx=\"\(c(cx))\" cy=\"\(c(cy))\" r=\"4.5\"/>"
    // Right of the mark, or left of it near the right edge.
    let atRight = cx < DETPlot.right - 110
    svg += "<text class=\"det-label\" x=\"\(c(atRight ? cx + 8 : cx - 8))\" y=\"\(c(cy - 6))\""
    svg += atRight ? ">" : " text-anchor=\"end\">"
    return svg + ReportFormat.escape(label) + "</text></g>"
  }
}
