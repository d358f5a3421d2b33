import CardGeometry
import Foundation
import Imaging

/// Finds card-shaped quadrilaterals in a frame without any prior: on a
/// copy about `workingWidth` pixels wide it keeps thin edges (Sobel,
/// non-maximum suppression), finds straight lines with a Hough transform
/// voted along each edge's gradient, refits each line to its edge points
/// and records where along it there are edges. Every pair of roughly
/// opposite lines with another such pair makes a quadrilateral; it is kept
/// when each side is mostly backed by edges (corners excluded, which are
/// rounded on a card) and a card seen by the camera could have that shape.
/// Buffers are allocated once and reused.
final class CardDetector {
  let workingWidth: Int
  let work = ImageBuffer(format: .gray8)
  let workColor = ImageBuffer(format: .rgb8)
  var magnitude: [Float] = []
  var gradX: [Float] = []
  var gradY: [Float] = []
  // Edge points.
  var edgeX: [Float] = []
  var edgeY: [Float] = []
  var edgeAngle: [Float] = []
  // Cosine and sine of the edge's gradient direction.
  var edgeCos: [Float] = []
  var edgeSin: [Float] = []
  var edgeCount = 0
  /// Edge indices ordered by gradient direction (whole degrees, 0–179);
  /// the edges of degree d are `edgeOrder[binStart[d]..<binStart[d + 1]]`.
  /// A line's refit reads only the edges near its direction through it.
  var edgeOrder: [Int32] = []
  var binStart = [Int](repeating: 0, count: 181)
  /// Per working pixel: 0, or 1 + the edge's gradient direction in degrees (0–179).
  var edgeMap: [UInt8] = []
  // Hough space: 180 one-degree angles × offsets of one pixel.
  var accumulator: [Int32] = []
  var offsetBins = 0
  let cosines: [Double] = (0..<180).map { cos(Double($0) * .pi / 180) }
  let sines: [Double] = (0..<180).map { sin(Double($0) * .pi / 180) }
  // Lines found and, per line, prefix sums of the edge occupancy along it.
  var lines: [Line2] = []
  var occupancy: [Int32] = []
  var occupancyLength = 0
  /// The working image's diagonal (plus a margin) the lines were last found
  /// with: offsets and positions along a line are counted from -diagonal.
  var diagonal = 0.0
  /// Column sums of a band of rows, for `reduceColor`.
  var rowSums: [UInt32] = []

  init(workingWidth: Int) { self.workingWidth = max(64, workingWidth) }

  /// A candidate found by `detect`: corners in the coordinates of the
  /// image given to `detect`, clockwise on screen, and its score.
  struct Candidate {
    var corners: [Point2]
    var score: Double
    /// The lines found along corners[k]–corners[k + 1], -1 for a side
    /// completed from the others.
    var sides: [Int] = []
    /// The side (corners[k]–corners[k + 1]) completed from the other three, if any.
    var completedSide: Int? = nil
    /// 1, lowered for each line of the background running across a side:
    /// a sign of clutter rather than a card.
    var plausibility = 1.0
  }

  /// What `detect` found that `completed` goes on from.
  struct Search {
    var minimumSide: Double
    var camera: PinholeCamera
    var crossing: [Point2?]
    var scaleX: Double
    var scaleY: Double
  }
  var search: Search?

  /// Cards seen on all four sides in `gray`, best first (at most `limit`).
  /// `camera` is the camera in `gray`'s coordinates; `minimumWidth` the
  /// shortest card width to look for, pixels of `gray`.
  /// `color`, when given, is the same frame in colour (rgb8, the size of
  /// `gray`): edges are then steps of colour as well as of brightness.
  func detect(
    _ gray: ImageBuffer, color: ImageBuffer? = nil, camera: PinholeCamera, minimumWidth: Double, limit: Int = 8
  ) -> [Candidate] {
    search = nil
    let scale = Double(gray.width) / Double(min(workingWidth, gray.width))
    let width = Int((Double(gray.width) / scale).rounded())
    let height = max(8, Int((Double(gray.height) / scale).rounded()))
    var useColor = false
    if let color, color.format == .rgb8, color.width == gray.width, color.height == gray.height {
      if color.width % width == 0, color.height % height == 0, color.width / width == color.height / height {
        reduceColor(color, factor: color.width / width, into: workColor)
        useColor = true
      } else {
        useColor = (try? ImageConversion.resize(color, width: width, height: height, into: workColor)) != nil
      }
    }
    if useColor {
      // Edges come from the colour image alone: the luma copy only gives the size.
      work.reshape(width: width, height: height, format: .gray8)
    } else {
      guard (try? ImageConversion.resize(gray, width: width, height: height, into: work)) != nil else { return [] }
    }
    let scaleX = Double(gray.width) / Double(width)
    let scaleY = Double(gray.height) / Double(height)
    findEdges(color: useColor)
    let minimumSide = max(8, minimumWidth / scaleX / CardFormat.aspectRatio * 0.6)
    findLines(minimumVotes: Int32(max(10, minimumSide * 0.7)))
    // The camera as seen in the working image.
    let workCamera = PinholeCamera(focal: camera.focal / scaleX, width: width, height: height)
    let found = Search(
      minimumSide: minimumSide, camera: workCamera, crossing: crossings(), scaleX: scaleX, scaleY: scaleY)
    search = found
    return best(quads(minimumSide: minimumSide, camera: workCamera, crossing: found.crossing), of: found, limit: limit)
  }

  /// Cards seen on three sides in the image `detect` was last given, best
  /// first (at most `limit`). Asked for only when no four-sided candidate
  /// made a clear card: they cost more to find than the four-sided ones.
  func completed(limit: Int = 8) -> [Candidate] {
    guard let search else { return [] }
    return best(
      completions(minimumSide: search.minimumSide, camera: search.camera, crossing: search.crossing), of: search,
      limit: limit)
  }
}
