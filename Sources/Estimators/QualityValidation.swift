import Imaging

/// Checks each quality score against real images with known degradations:
/// the untouched images should pass every check at its default threshold,
/// and each degraded copy should fail the check made for that degradation.
public enum QualityValidation {
  /// The defaults of LUNA ID's best-shot checks, which workbench keeps.
  public static let defaultThresholds: [QualityKind: Double] = [
    .blur: 0.61, .lightness: 0.57, .darkness: 0.50, .illumination: 0.1, .specularity: 0.1,
  ]

  /// The degradations that each check must catch.
  public static let degradations: [(QualityKind, ImageDegradation)] = [
    (.blur, .blur(radius: 2)), (.blur, .blur(radius: 4)),
    (.darkness, .darken(factor: 0.25)), (.darkness, .darken(factor: 0.12)),
    (.lightness, .overExpose(gain: 2.5)), (.lightness, .overExpose(gain: 4)),
    (.illumination, .unevenLight(darkest: 0.05)), (.illumination, .unevenLight(darkest: 0.01)),
    (.specularity, .glare(share: 0.06)), (.specularity, .glare(share: 0.12)),
  ]

  public struct Row: Sendable {
    public var image: String
    /// nil for the untouched image.
    public var degradation: String?
    /// The check this row's degradation is meant to trip (nil: none).
    public var target: QualityKind?
    public var scores: [QualityKind: Double]
  }

  public struct Summary: Sendable {
    public var kind: QualityKind
    public var threshold: Double
    /// Untouched images at or above the threshold, of all untouched images.
    public var goodPassed: Int
    public var good: Int
    /// Degraded images (for this check) below the threshold.
    public var badRejected: Int
    public var bad: Int
    public var lowestGood: Double
    public var highestBad: Double
  }

  /// Scores every image untouched and under each degradation.
  public static func run(images: [(name: String, gray: ImageBuffer)]) -> (rows: [Row], summaries: [Summary]) {
    var rows: [Row] = []
    for (name, image) in images {
      rows.append(Row(image: name, degradation: nil, target: nil, scores: scores(image)))
      for (kind, degradation) in degradations {
        let copy = image.copy()
        degradation.apply(to: copy)
        rows.append(Row(image: name, degradation: degradation.description, target: kind, scores: scores(copy)))
      }
    }
    let summaries = QualityKind.allCases.map { kind -> Summary in
      let threshold = defaultThresholds[kind] ?? 0
      let good = rows.filter { $0.degradation == nil }.compactMap { $0.scores[kind] }
      let bad = rows.filter { $0.target == kind }.compactMap { $0.scores[kind] }
      return Summary(
        kind: kind, threshold: threshold, goodPassed: good.filter { $0 >= threshold }.count, good: good.count,
        badRejected: bad.filter { $0 < threshold }.count, bad: bad.count, lowestGood: good.min() ?? 0,
        highestBad: bad.max() ?? 0)
    }
    return (rows, summaries)
  }

  static func scores(_ image: ImageBuffer) -> [QualityKind: Double] {
    var result: [QualityKind: Double] = [:]
    for kind in QualityKind.allCases { result[kind] = QualityEstimator.score(kind, image) }
    return result
  }
}
