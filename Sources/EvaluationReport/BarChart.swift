import SessionReport

/// Horizontal bars on one value axis, one row each, with the numbers written
/// beside them: APCER per species with its interval as a whisker, and the
/// rejected bona fide presentations by step and reason.
struct BarChart {
  struct Bar {
    var label: String
    /// Nil draws no bar (a rate with no denominator).
    var value: Double?
    var interval: (low: Double, high: Double)? = nil
    /// Beside the bar: the value, its interval and its counts.
    var text: String
    var tooltip: String
    /// Drawn in the warning colour (the species of the reported APCER).
    var highlighted = false
    /// The row's `data-bar`, for readers and tests.
    var key: String
  }

  /// The chart's class besides `plot`, and what it shows, for screen readers.
  var kind: String
  var description: String
  var bars: [Bar]
  /// The axis runs from 0 to `upper`, with these ticks and their labels.
  var upper: Double
  var ticks: [(value: Double, label: String)]

  static let width = 960.0
  static let labelRight = 184.0
  static let plotLeft = 192.0
  static let plotRight = 680.0
  static let textLeft = 692.0
  static let rowHeight = 26.0
  static let top = 6.0

  private func c(_ value: Double) -> String { ReportFormat.coordinate(value) }

  private func x(_ value: Double) -> Double {
    let fraction = upper > 0 ? min(max(value / upper, 0), 1) : 0
    return BarChart.plotLeft + fraction * (BarChart.plotRight - BarChart.plotLeft)
  }

  /// An axis for rates from 0 that holds every value and interval, in percent.
  static func rateAxis(_ values: [Double]) -> (upper: Double, ticks: [(value: Double, label: String)]) {
    let highest = values.filter(\.isFinite).max() ?? 0
    guard highest > 0 else { return (0.1, [0, 0.05, 0.1].map { ($0, Percent.tick($0, decimals: 2)) }) }
    let scale = NiceScale(low: 0, high: min(highest, 1), count: 5)
    let upper = min(scale.upper, 1)
    let ticks = scale.ticks.filter { $0 <= upper + 1e-12 }
    return (upper, ticks.map { ($0, Percent.tick($0, decimals: scale.decimals)) })
  }

  /// An axis for counts from 0, with whole ticks only.
  static func countAxis(_ highest: Int) -> (upper: Double, ticks: [(value: Double, label: String)]) {
    let scale = NiceScale(low: 0, high: Double(max(highest, 1)), count: 4)
    let ticks = scale.ticks.filter { $0 == $0.rounded() }
    return (scale.upper, ticks.map { ($0, ReportFormat.fixed($0, 0)) })
  }

  func svg() -> String {
    let axisY = BarChart.top + Double(bars.count) * BarChart.rowHeight + 4
    let height = axisY + 22
    var svg = "<svg class=\"plot \(kind)\" xmlns=\"http://www.w3.org/2000/svg\""
    svg += " viewBox=\"0 0 \(c(BarChart.width)) \(c(height))\" width=\"\(c(BarChart.width))\" height=\"\(c(height))\""
    svg += " role=\"img\" aria-label=\"\(ReportFormat.escape(description))\">"
    for tick in ticks {
      let tx = x(tick.value)
      svg += "<line class=\"grid\" x1=\"\(c(tx))\" y1=\"\(c(BarChart.top))\" x2=\"\(c(tx))\" y2=\"\(c(axisY))\"/>"
      svg += "<line class=\"tick\" x1=\"\(c(tx))\" y1=\"\(c(axisY))\" x2=\"\(c(tx))\" y2=\"\(c(axisY + 4))\"/>"
      svg += "<text class=\"tick-label\" x=\"\(c(tx))\" y=\"\(c(axisY + 15))\" text-anchor=\"middle\">"
      svg += ReportFormat.escape(tick.label) + "</text>"
    }
    svg += "<line class=\"axis\" x1=\"\(c(BarChart.plotLeft))\" y1=\"\(c(axisY))\" x2=\"\(c(BarChart.plotRight))\""
    svg += " y2=\"\(c(axisY))\"/>"
    svg += "<line class=\"axis\" x1=\"\(c(BarChart.plotLeft))\" y1=\"\(c(BarChart.top))\""
    svg += " x2=\"\(c(BarChart.plotLeft))\" y2=\"\(c(axisY))\"/>"
    for (row, bar) in bars.enumerated() {
      let y = BarChart.top + Double(row) * BarChart.rowHeight
      let middle = y + BarChart.rowHeight / 2
      svg +=
        "<g class=\"bar-row\(bar.highlighted ? " highlighted" : "")\" data-bar=\"\(ReportFormat.escape(bar.key))\">"
      svg += "<title>\(ReportFormat.escape(bar.tooltip))</title>"
      svg += "<text class=\"bar-label\" x=\"\(c(BarChart.labelRight))\" y=\"\(c(middle + 4))\" text-anchor=\"end\">"
      svg += ReportFormat.escape(BarChart.fitted(bar.label, letters: 28)) + "</text>"
      if let value = bar.value {
        // A bar of a non-zero value shows even when it rounds to nothing.
        let width = max(x(value) - BarChart.plotLeft, value > 0 ? 1 : 0)
        svg += "<rect class=\"bar\" x=\"\(c(BarChart.plotLeft))\" y=\"\(c(middle - 8))\" width=\"\(c(width))\""
        svg += " height=\"16\" rx=\"2\"/>"
      }
      if let interval = bar.interval {
        let low = x(interval.low)
        let high = x(interval.high)
        svg += "<g class=\"whisker\"><line x1=\"\(c(low))\" y1=\"\(c(middle))\" x2=\"\(c(high))\" y2=\"\(c(middle))\"/>"
        for end in [low, high] {
          svg += "<line x1=\"\(c(end))\" y1=\"\(c(middle - 5))\" x2=\"\(c(end))\" y2=\"\(c(middle + 5))\"/>"
        }
        svg += "</g>"
      }
      svg += "<text class=\"bar-value\" x=\"\(c(BarChart.textLeft))\" y=\"\(c(middle + 4))\">"
      svg += ReportFormat.escape(bar.text) + "</text></g>"
    }
    return svg + "</svg>"
  }

  /// `text` cut to `letters` characters with an ellipsis; the tooltip has it whole.
  static func fitted(_ text: String, letters: Int) -> String {
    text.count <= letters ? text : String(text.prefix(letters - 1)) + "…"
  }
}
