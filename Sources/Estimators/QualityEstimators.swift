import Imaging
import Measurements

/// The image-quality checks, each a score in [0, 1] where 1 is best, so a
/// check passes when the score is at or above its threshold (the convention
/// of LUNA ID's best-shot checks; docs/estimators.md gives each formula).
public enum QualityKind: String, CaseIterable, Sendable {
  /// Sharpness: 1 is sharp, 0 is a smear.
  case blur
  /// 1 when few pixels are near black.
  case darkness
  /// 1 when few pixels are blown out (over-exposure).
  case lightness
  /// 1 when the two halves of the region (left/right, top/bottom) are lit alike.
  case illumination
  /// 1 when no pixels are saturated highlights (glare, specular reflection).
  case specularity

  public var summary: String {
    switch self {
    case .blur: return "sharpness: Laplacian energy relative to contrast"
    case .darkness: return "share of pixels that are not near black"
    case .lightness: return "share of pixels that are not blown out"
    case .illumination: return "balance of light between the region's halves"
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

  /// Pixels at or below this are "near black" for `darkness`.
  static let darkLevel: UInt8 = 40
  /// Pixels at or above this are "blown out" for `lightness`.
  static let brightLevel: UInt8 = 245
  /// Pixels at or above this are saturated highlights for `specularity`.
  static let highlightLevel: UInt8 = 250
  /// The share of saturated pixels that scores 0 for `specularity`.
  static let highlightShareForZero = 0.08
  /// Scale of the sharpness ratio: a ratio equal to this scores 0.5.
  static let sharpnessMidpoint = 0.12

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
    case .darkness: return 1 - share(image) { $0 <= darkLevel }
    case .lightness: return 1 - share(image) { $0 >= brightLevel }
    case .illumination: return balance(image)
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

  /// min(left, right) / max(left, right), and the same for top and bottom;
  /// the smaller of the two ratios.
  static func balance(_ image: ImageBuffer) -> Double {
    let step = step(image)
    let pixels = image.pixels
    let width = image.width
    let height = image.height
    var sums = (left: 0, right: 0, top: 0, bottom: 0)
    var counts = (left: 0, right: 0, top: 0, bottom: 0)
    var y = 0
    while y < height {
      let row = pixels + y * width
      let upper = y < height / 2
      var x = 0
      while x < width {
        let value = Int(row[x])
        if x < width / 2 {
          sums.left += value
          counts.left += 1
        } else {
          sums.right += value
          counts.right += 1
        }
        if upper {
          sums.top += value
          counts.top += 1
        } else {
          sums.bottom += value
          counts.bottom += 1
        }
        x += step
      }
      y += step
    }
    func mean(_ sum: Int, _ count: Int) -> Double { count == 0 ? 0 : Double(sum) / Double(count) + 1 }
    func ratio(_ a: Double, _ b: Double) -> Double { min(a, b) / max(a, b) }
    return min(
      ratio(mean(sums.left, counts.left), mean(sums.right, counts.right)),
      ratio(mean(sums.top, counts.top), mean(sums.bottom, counts.bottom)))
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
  public let descriptor = EstimatorDescriptor(
    name: "image", summary: "frame size in pixels", provides: ["image.width", "image.height"])
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
    measurements[widthNode] = .integer(Int64(frame.width))
    measurements[heightNode] = .integer(Int64(frame.height))
  }
}

/// The estimators that come with workbench, in a stable order.
public enum BuiltinEstimators {
  public static func all() -> [any Estimator] {
    [FrameInfoEstimator()] + QualityKind.allCases.map { QualityEstimator($0) }
  }
}
