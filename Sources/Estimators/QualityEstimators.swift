import Imaging
import Measurements

/// The image-quality checks, each a score in [0, 1] where 1 is best, so a
/// check passes when the score is at or above its threshold (the convention
/// of LUNA ID's best-shot checks; docs/estimators.md gives each formula).
public enum QualityKind: String, CaseIterable, Sendable {
  /// Sharpness: 1 is sharp, 0 is a smear.
  case blur
  /// 1 when the brightest tenth of the region is well lit; low when all of it is dark.
  case darkness
  /// 1 when few pixels are blown out (over-exposure).
  case lightness
  /// 1 when the left and right edges of the region are lit alike (no side lighting).
  case illumination
  /// 1 when no pixels are saturated highlights (glare, specular reflection).
  case specularity

  public var summary: String {
    switch self {
    case .blur: return "sharpness: Laplacian energy relative to contrast"
    case .darkness: return "brightness of the brightest tenth of the pixels"
    case .lightness: return "share of pixels that are not blown out"
    case .illumination: return "balance of light between the left and right quarters"
    case .specularity: return "share of pixels that are not saturated highlights"
    }
  }
}

/// Where in the frame a quality estimator looks.
public enum QualityRegion: Sendable, Equatable {
  case wholeFrame
}

/// One quality score over a region, computed on a grid of at most about
/// 320 × 240 samples of the luma so that all five together stay well under
/// a millisecond at 640 × 480.
public final class QualityEstimator: Estimator {
  public let kind: QualityKind
  public let region: QualityRegion
  public let descriptor: EstimatorDescriptor
  private let path: String
  private var node = -1
  private var ancestors: [Int] = []

  // The constants were set on real photos and degraded copies of them
  // (`workbench-bench quality` prints the table; docs/estimators.md).

  /// The 90th percentile of the luma that scores 1 for `darkness`: a frame
  /// whose brightest tenth is under half of it (80) is too dark.
  static let wellLitLevel = 160.0
  /// Pixels at or above this are "blown out" for `lightness`.
  static let brightLevel: UInt8 = 245
  /// The share of blown-out pixels that scores 0 for `lightness`.
  static let blownShareForZero = 0.5
  /// Pixels at or above this are saturated highlights for `specularity`.
  static let highlightLevel: UInt8 = 250
  /// The share of saturated pixels that scores 0 for `specularity`.
  static let highlightShareForZero = 0.05
  /// Scale of the sharpness ratio: a ratio equal to this scores 0.5.
  static let sharpnessMidpoint = 0.003

  public init(_ kind: QualityKind, region: QualityRegion = .wholeFrame, prefix: String = "quality") {
    self.kind = kind
    self.region = region
    path = prefix + "." + kind.rawValue
    descriptor = EstimatorDescriptor(
      name: "\(prefix).\(kind.rawValue)", summary: kind.summary, provides: [path])
  }

  public func prepare(schema: MeasurementSchema) throws(EstimatorError) {
    node = try schema.valueNode(path, estimator: descriptor.name)
    ancestors = schema.ancestors(of: node)
  }

  public func estimate(_ frame: DecodedFrame, into measurements: inout MeasurementFrame) {
    guard frame.gray.width > 2, frame.gray.height > 2 else { return }
    let score = QualityEstimator.score(kind, frame.gray)
    for ancestor in ancestors { measurements[ancestor] = .table }
    measurements[node] = .number((score * 1000).rounded() / 1000)
  }

  /// The score of `kind` over the whole of `image` (gray8).
  public static func score(_ kind: QualityKind, _ image: ImageBuffer) -> Double {
    switch kind {
    case .blur: return sharpness(image)
    case .darkness: return min(1, Double(percentile(image, 0.9)) / wellLitLevel)
    case .lightness: return max(0, 1 - share(image) { $0 >= brightLevel } / blownShareForZero)
    case .illumination: return sideBalance(image)
    case .specularity: return max(0, 1 - share(image) { $0 >= highlightLevel } / highlightShareForZero)
    }
  }

  /// The sampling step that keeps the grid near 320 samples wide.
  static func step(_ image: ImageBuffer) -> Int { max(1, image.width / 320) }

  static func share(_ image: ImageBuffer, where test: (UInt8) -> Bool) -> Double {
    let step = step(image)
    let pixels = image.pixels
    let width = image.width
    var hits = 0
    var total = 0
    var y = 0
    while y < image.height {
      let row = pixels + y * width
      var x = 0
      while x < width {
        if test(row[x]) { hits += 1 }
        total += 1
        x += step
      }
      y += step
    }
    return total == 0 ? 0 : Double(hits) / Double(total)
  }

  /// The luma below which `fraction` of the sampled pixels lie.
  static func percentile(_ image: ImageBuffer, _ fraction: Double) -> Int {
    // On the stack: this runs every frame.
    withUnsafeTemporaryAllocation(of: Int.self, capacity: 256) { histogram in
      histogram.initialize(repeating: 0)
      return percentile(image, fraction, histogram: histogram)
    }
  }

  private static func percentile(_ image: ImageBuffer, _ fraction: Double, histogram: UnsafeMutableBufferPointer<Int>)
    -> Int
  {
    let step = step(image)
    var total = 0
    var y = 0
    while y < image.height {
      let row = image.pixels + y * image.width
      var x = 0
      while x < image.width {
        histogram[Int(row[x])] += 1
        total += 1
        x += step
      }
      y += step
    }
    let wanted = Int((Double(total) * fraction).rounded(.up))
    var seen = 0
    for (level, count) in histogram.enumerated() {
      seen += count
      if seen >= wanted { return level }
    }
    return 255
  }

  /// (darker / brighter)² of the mean luma of the left and right quarters.
  /// Light from one side is what spoils a face; top and bottom differ in
  /// every portrait (hair, clothes), so they are not compared. The square
  /// spreads the low end, where LUNA ID's default threshold (0.1) sits.
  static func sideBalance(_ image: ImageBuffer) -> Double {
    let step = step(image)
    let width = image.width
    let quarter = max(1, width / 4)
    var left = (sum: 0, count: 0)
    var right = (sum: 0, count: 0)
    var y = 0
    while y < image.height {
      let row = image.pixels + y * width
      var x = 0
      while x < quarter {
        left.sum += Int(row[x])
        left.count += 1
        right.sum += Int(row[width - 1 - x])
        right.count += 1
        x += step
      }
      y += step
    }
    let leftMean = Double(left.sum) / Double(max(1, left.count)) + 1
    let rightMean = Double(right.sum) / Double(max(1, right.count)) + 1
    let ratio = min(leftMean, rightMean) / max(leftMean, rightMean)
    return ratio * ratio
  }

  /// Variance of the 4-neighbour Laplacian relative to the variance of the
  /// luma, at grid points: blur removes the fine detail the Laplacian sees
  /// while keeping most of the contrast, so the ratio falls. Dividing by
  /// the contrast makes the score independent of exposure.
  static func sharpness(_ image: ImageBuffer) -> Double {
    let step = step(image)
    let pixels = image.pixels
    let width = image.width
    var lapSum = 0.0
    var lapSquares = 0.0
    var lumaSum = 0.0
    var lumaSquares = 0.0
    var count = 0.0
    var y = 1
    while y < image.height - 1 {
      let row = pixels + y * width
      var x = 1
      while x < width - 1 {
        let center = Int(row[x])
        let laplacian = 4 * center - Int(row[x - 1]) - Int(row[x + 1]) - Int(row[x - width]) - Int(row[x + width])
        let l = Double(laplacian)
        let c = Double(center)
        lapSum += l
        lapSquares += l * l
        lumaSum += c
        lumaSquares += c * c
        count += 1
        x += step
      }
      y += step
    }
    guard count > 1 else { return 0 }
    let lapVariance = lapSquares / count - (lapSum / count) * (lapSum / count)
    let lumaVariance = lumaSquares / count - (lumaSum / count) * (lumaSum / count)
    // A flat image has no detail to judge: call it unsharp.
    guard lumaVariance > 4 else { return 0 }
    let ratio = lapVariance / lumaVariance
    return ratio / (ratio + sharpnessMidpoint)
  }
}

/// The frame's size, for flows that reason in pixels.
public final class FrameInfoEstimator: Estimator {
  // The size as captured, whatever the decode: it works at any scale.
  public let descriptor = EstimatorDescriptor(
    name: "image", summary: "frame size in pixels", provides: ["image.width", "image.height"],
    fields: [MeasurementField("image.width", .integer), MeasurementField("image.height", .integer)], workingWidth: 1)
  private var widthNode = -1
  private var heightNode = -1
  private var ancestors: [Int] = []

  public init() {}

  public func prepare(schema: MeasurementSchema) throws(EstimatorError) {
    widthNode = try schema.valueNode("image.width", estimator: descriptor.name)
    heightNode = try schema.valueNode("image.height", estimator: descriptor.name)
    ancestors = schema.ancestors(of: widthNode)
  }

  public func estimate(_ frame: DecodedFrame, into measurements: inout MeasurementFrame) {
    for ancestor in ancestors { measurements[ancestor] = .table }
    measurements[widthNode] = .integer(Int64(frame.sourceWidth > 0 ? frame.sourceWidth : frame.width))
    measurements[heightNode] = .integer(Int64(frame.sourceHeight > 0 ? frame.sourceHeight : frame.height))
  }
}

/// The estimators that come with workbench, in a stable order.
public enum BuiltinEstimators {
  public static func all() -> [any Estimator] {
    [FrameInfoEstimator()] + QualityKind.allCases.map { QualityEstimator($0) }
  }
}
