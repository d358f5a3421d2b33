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
  private let work = ImageBuffer(format: .gray8)
  private let workColor = ImageBuffer(format: .rgb8)
  private var magnitude: [Float] = []
  private var gradX: [Float] = []
  private var gradY: [Float] = []
  // Edge points.
  private var edgeX: [Float] = []
  private var edgeY: [Float] = []
  private var edgeAngle: [Float] = []
  // Cosine and sine of the edge's gradient direction.
  private var edgeCos: [Float] = []
  private var edgeSin: [Float] = []
  private var edgeCount = 0
  /// Edge indices ordered by gradient direction (whole degrees, 0–179);
  /// the edges of degree d are `edgeOrder[binStart[d]..<binStart[d + 1]]`.
  /// A line's refit reads only the edges near its direction through it.
  private var edgeOrder: [Int32] = []
  private var binStart = [Int](repeating: 0, count: 181)
  /// Per working pixel: 0, or 1 + the edge's gradient direction in degrees (0–179).
  private var edgeMap: [UInt8] = []
  // Hough space: 180 one-degree angles × offsets of one pixel.
  private static let angleBins = 180
  private var accumulator: [Int32] = []
  private var offsetBins = 0
  private let cosines: [Double] = (0..<180).map { cos(Double($0) * .pi / 180) }
  private let sines: [Double] = (0..<180).map { sin(Double($0) * .pi / 180) }
  // Lines found and, per line, prefix sums of the edge occupancy along it.
  private(set) var lines: [Line2] = []
  private var occupancy: [Int32] = []
  private var occupancyLength = 0
  private static let occupancyBin = 2.0
  static let maximumLines = 60

  /// Sobel magnitude below which a pixel is no edge (about a 10-level step).
  static let edgeThreshold: Float = 40

  /// How fast a candidate's score falls with its shape residual: a card
  /// seen by the right camera has none, an inner rectangle of the card (below
  /// its header band, say) a few hundredths.
  static let residualScale = 0.04

  /// How much each side running on past a corner lowers a candidate's score.
  static let runOnPenalty = 0.25

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

  /// How many candidates, the best first, are checked for lines crossing them.
  static let crossingChecks = 40
  /// How much each line crossing a candidate's side lowers its score.
  static let crossingPenalty = 0.7

  /// What `detect` found that `completed` goes on from.
  private struct Search {
    var minimumSide: Double
    var camera: PinholeCamera
    var crossing: [Point2?]
    var scaleX: Double
    var scaleY: Double
  }
  private var search: Search?

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

  /// The best `limit` of `candidates`, one of each card, in the coordinates of the image searched.
  private func best(_ candidates: [Candidate], of search: Search, limit: Int) -> [Candidate] {
    var candidates = candidates.sorted { $0.score > $1.score }
    // A card lies on top of what is behind it: no edge of the background
    // runs across its sides. A quadrilateral made of lines of the clutter
    // mostly has some.
    for index in 0..<min(candidates.count, Self.crossingChecks) {
      let factor = exp(-Double(crossingLines(candidates[index])) * Self.crossingPenalty)
      candidates[index].score *= factor
      candidates[index].plausibility *= factor
    }
    candidates.sort { $0.score > $1.score }
    // One of each: a candidate whose corners are all near those of a
    // better one is the same card.
    var kept: [Candidate] = []
    for candidate in candidates where kept.count < limit {
      let same = kept.contains { other in
        candidate.corners.allSatisfy { corner in other.corners.contains { $0.distance(to: corner) < 2.5 } }
      }
      if !same { kept.append(candidate) }
    }
    return kept.map { candidate in
      // From working-pixel centres to `gray`'s pixel centres.
      Candidate(
        corners: candidate.corners.map {
          Point2(($0.x + 0.5) * search.scaleX - 0.5, ($0.y + 0.5) * search.scaleY - 0.5)
        },
        score: candidate.score, sides: candidate.sides, completedSide: candidate.completedSide,
        plausibility: candidate.plausibility)
    }
  }

  /// Column sums of a band of rows, for `reduceColor`.
  private var rowSums: [UInt32] = []

  /// Block averages of `factor` × `factor` pixels of an rgb8 image (the
  /// same as `ImageConversion.resize` for a whole-number factor): the
  /// rows of a band are summed first, reading memory in order.
  private func reduceColor(_ source: ImageBuffer, factor: Int, into destination: ImageBuffer) {
    let width = source.width / factor
    let height = source.height / factor
    destination.reshape(width: width, height: height, format: .rgb8)
    let rowBytes = source.width * 3
    if rowSums.count < rowBytes { rowSums = [UInt32](repeating: 0, count: rowBytes) }
    let area = UInt32(factor * factor)
    let half = area / 2
    rowSums.withUnsafeMutableBufferPointer { sums in
      for row in 0..<height {
        let band = source.pixels + row * factor * rowBytes
        for x in 0..<rowBytes { sums[x] = UInt32(band[x]) }
        for line in 1..<factor {
          let pixels = band + line * rowBytes
          for x in 0..<rowBytes { sums[x] &+= UInt32(pixels[x]) }
        }
        let output = destination.pixels + row * width * 3
        for column in 0..<width {
          let start = column * factor * 3
          var r: UInt32 = 0
          var g: UInt32 = 0
          var b: UInt32 = 0
          for k in 0..<factor {
            r &+= sums[start + 3 * k]
            g &+= sums[start + 3 * k + 1]
            b &+= sums[start + 3 * k + 2]
          }
          output[column * 3] = UInt8(truncatingIfNeeded: (r + half) / area)
          output[column * 3 + 1] = UInt8(truncatingIfNeeded: (g + half) / area)
          output[column * 3 + 2] = UInt8(truncatingIfNeeded: (b + half) / area)
        }
      }
    }
  }

  private func findEdges(color: Bool) {
    let width = work.width
    let height = work.height
    let count = width * height
    if magnitude.count < count {
      magnitude = [Float](repeating: 0, count: count)
      gradX = magnitude
      gradY = magnitude
      edgeX = magnitude
      edgeY = magnitude
      edgeAngle = magnitude
      edgeCos = magnitude
      edgeSin = magnitude
    }
    if edgeMap.count < count { edgeMap = [UInt8](repeating: 0, count: count) }
    edgeMap.withUnsafeMutableBufferPointer { $0.baseAddress!.update(repeating: 0, count: count) }
    if color {
      colorGradient()
    } else {
      lumaGradient()
    }
    thinEdges()
    orderEdgesByDirection()
  }

  private func orderEdgesByDirection() {
    if edgeOrder.count < edgeCount { edgeOrder = [Int32](repeating: 0, count: edgeX.count) }
    var counts = [Int](repeating: 0, count: 181)
    for e in 0..<edgeCount { counts[degree(of: e) + 1] += 1 }
    for d in 0..<180 { counts[d + 1] += counts[d] }
    binStart = counts
    var next = counts
    for e in 0..<edgeCount {
      let d = degree(of: e)
      edgeOrder[next[d]] = Int32(e)
      next[d] += 1
    }
  }

  private func degree(of edge: Int) -> Int { min(179, Int(edgeAngle[edge] * 180 / .pi)) }

  /// The Sobel derivatives (x, y) at `center`, whose horizontal
  /// neighbours are `step` bytes away and vertical ones `stride`.
  @inline(__always)
  private static func sobel(_ center: UnsafeMutablePointer<UInt8>, step: Int, stride: Int) -> (Float, Float) {
    let a = Int32(center[-stride - step])
    let b = Int32(center[-stride])
    let c = Int32(center[-stride + step])
    let d = Int32(center[-step])
    let f = Int32(center[step])
    let g = Int32(center[stride - step])
    let h = Int32(center[stride])
    let k = Int32(center[stride + step])
    return (Float((c &+ 2 &* f &+ k) &- (a &+ 2 &* d &+ g)), Float((g &+ 2 &* h &+ k) &- (a &+ 2 &* b &+ c)))
  }

  /// Sobel on the luma.
  private func lumaGradient() {
    let width = work.width
    let height = work.height
    let count = width * height
    let pixels = work.pixels
    magnitude.withUnsafeMutableBufferPointer { mag in
      gradX.withUnsafeMutableBufferPointer { gx in
        gradY.withUnsafeMutableBufferPointer { gy in
          for index in 0..<width { mag[index] = 0 }
          for index in (height - 1) * width..<count { mag[index] = 0 }
          for y in 1..<height - 1 {
            let row = y * width
            mag[row] = 0
            mag[row + width - 1] = 0
            for x in 1..<width - 1 {
              let i = row + x
              let (sx, sy) = Self.sobel(pixels + i, step: 1, stride: width)
              gx[i] = sx
              gy[i] = sy
              mag[i] = (sx * sx + sy * sy).squareRoot()
            }
          }
        }
      }
    }
  }

  /// Sobel on each colour channel, combined through the structure tensor
  /// (the direction in which the colour changes fastest); scaled so that a
  /// gray step gives the magnitude luma would.
  private func colorGradient() {
    let width = work.width
    let height = work.height
    let count = width * height
    let pixels = workColor.pixels
    let threshold = Self.edgeThreshold
    magnitude.withUnsafeMutableBufferPointer { mag in
      gradX.withUnsafeMutableBufferPointer { gx in
        gradY.withUnsafeMutableBufferPointer { gy in
          for index in 0..<width { mag[index] = 0 }
          for index in (height - 1) * width..<count { mag[index] = 0 }
          let stride = width * 3
          for y in 1..<height - 1 {
            let row = y * width
            mag[row] = 0
            mag[row + width - 1] = 0
            for x in 1..<width - 1 {
              let i = row + x
              var sxx: Float = 0
              var syy: Float = 0
              var sxy: Float = 0
              for channel in 0..<3 {
                let (sx, sy) = Self.sobel(pixels + i * 3 + channel, step: 3, stride: stride)
                sxx += sx * sx
                syy += sy * sy
                sxy += sx * sy
              }
              // The larger eigenvalue and its eigenvector (its direction
              // only where the pixel can be an edge).
              let half = (sxx + syy) / 2
              let root = (((sxx - syy) / 2) * ((sxx - syy) / 2) + sxy * sxy).squareRoot()
              let lambda = half + root
              let m = (lambda / 3).squareRoot()
              mag[i] = m
              guard m >= threshold else {
                gx[i] = 0
                gy[i] = 0
                continue
              }
              var vx = lambda - syy
              var vy = sxy
              if sxx < syy {
                vx = sxy
                vy = lambda - sxx
              }
              let norm = (vx * vx + vy * vy).squareRoot()
              if norm > 0 {
                gx[i] = m * vx / norm
                gy[i] = m * vy / norm
              } else {
                gx[i] = m
                gy[i] = 0
              }
            }
          }
        }
      }
    }
  }

  /// Keeps the maxima across the edge above the threshold as edge points.
  private func thinEdges() {
    let width = work.width
    let height = work.height
    edgeCount = 0
    let threshold = Self.edgeThreshold
    magnitude.withUnsafeBufferPointer { mag in
      gradX.withUnsafeBufferPointer { gx in
        gradY.withUnsafeBufferPointer { gy in
          edgeX.withUnsafeMutableBufferPointer { ex in
            edgeY.withUnsafeMutableBufferPointer { ey in
              edgeAngle.withUnsafeMutableBufferPointer { ea in
                for y in 2..<height - 2 {
                  for x in 2..<width - 2 {
                    let i = y * width + x
                    let m = mag[i]
                    guard m >= threshold else { continue }
                    // Thin: keep the maximum across the edge (4 directions).
                    let ax = abs(gx[i])
                    let ay = abs(gy[i])
                    let before: Float
                    let after: Float
                    if ax > 2.414 * ay {
                      before = mag[i - 1]
                      after = mag[i + 1]
                    } else if ay > 2.414 * ax {
                      before = mag[i - width]
                      after = mag[i + width]
                    } else if (gx[i] > 0) == (gy[i] > 0) {
                      before = mag[i - width - 1]
                      after = mag[i + width + 1]
                    } else {
                      before = mag[i - width + 1]
                      after = mag[i + width - 1]
                    }
                    guard m >= before, m > after else { continue }
                    var angle = atan2(gy[i], gx[i])
                    if angle < 0 { angle += .pi }
                    if angle >= .pi { angle -= .pi }
                    ex[edgeCount] = Float(x)
                    ey[edgeCount] = Float(y)
                    ea[edgeCount] = angle
                    edgeCos[edgeCount] = gx[i] / m
                    edgeSin[edgeCount] = gy[i] / m
                    edgeMap[i] = UInt8(min(179, Int(angle * 180 / .pi))) + 1
                    edgeCount += 1
                  }
                }
              }
            }
          }
        }
      }
    }
  }

  private func findLines(minimumVotes: Int32) {
    let width = work.width
    let height = work.height
    let diagonal = Int((Double(width * width + height * height)).squareRoot().rounded(.up)) + 2
    offsetBins = 2 * diagonal + 1
    let bins = Self.angleBins
    let cells = bins * offsetBins
    if accumulator.count < cells { accumulator = [Int32](repeating: 0, count: cells) }
    let offsetBins = self.offsetBins
    accumulator.withUnsafeMutableBufferPointer { votes in
      votes.baseAddress!.update(repeating: 0, count: cells)
      for e in 0..<edgeCount {
        let x = Double(edgeX[e])
        let y = Double(edgeY[e])
        let center = Int(Double(edgeAngle[e]) * 180 / .pi + 0.5)
        for bin in center - 3...center + 3 {
          var b = bin
          var sign = 1.0
          if b < 0 {
            b += bins
            sign = -1
          } else if b >= bins {
            b -= bins
            sign = -1
          }
          let rho = sign * (x * cosines[b] + y * sines[b])
          let r = Int(rho + Double(diagonal) + 0.5)
          votes[b * offsetBins + r] &+= 1
        }
      }
    }
    // Peaks: local maxima over ±3° and ±3 px, strongest first.
    var peaks: [(votes: Int32, angle: Int, offset: Int)] = []
    accumulator.withUnsafeBufferPointer { votes in
      for b in 0..<bins {
        for r in 3..<offsetBins - 3 {
          let v = votes[b * offsetBins + r]
          guard v >= minimumVotes else { continue }
          var isPeak = true
          search: for db in -3...3 {
            var nb = b + db
            var nr = r
            if nb < 0 {
              nb += bins
              nr = offsetBins - 1 - r
            } else if nb >= bins {
              nb -= bins
              nr = offsetBins - 1 - r
            }
            for dr in -3...3 {
              let rr = nr + dr
              guard rr >= 0, rr < offsetBins, db != 0 || dr != 0 else { continue }
              let other = votes[nb * offsetBins + rr]
              if other > v || (other == v && (db < 0 || (db == 0 && dr < 0))) {
                isPeak = false
                break search
              }
            }
          }
          if isPeak { peaks.append((v, b, r)) }
        }
      }
    }
    peaks.sort { $0.votes > $1.votes }
    // Refit each line to its own edge points and note where along it they are.
    lines.removeAll(keepingCapacity: true)
    occupancyLength = Int(Double(offsetBins) / Self.occupancyBin) + 2
    let needed = Self.maximumLines * occupancyLength
    if occupancy.count < needed { occupancy = [Int32](repeating: 0, count: needed) }
    var xs = [Double](repeating: 0, count: 0)
    var ys = [Double](repeating: 0, count: 0)
    xs.reserveCapacity(512)
    ys.reserveCapacity(512)
    for peak in peaks where lines.count < Self.maximumLines {
      let theta = Double(peak.angle) * .pi / 180
      let rho = Double(peak.offset - diagonal)
      var line = Line2(nx: cos(theta), ny: sin(theta), offset: rho)
      for pass in 0..<2 {
        xs.removeAll(keepingCapacity: true)
        ys.removeAll(keepingCapacity: true)
        let reach = pass == 0 ? 1.5 : 1.0
        // Edges within a pixel or so of the line, their direction within
        // 0.14 rad (8°) of its normal either way: |cos| > cos 0.14.
        let nx = line.nx
        let ny = line.ny
        let offset = line.offset
        // Only edges within 9° of the line's normal can pass the 8° test.
        var normalDegree = Int((atan2(ny, nx) * 180 / .pi).rounded())
        if normalDegree < 0 { normalDegree += 180 }
        edgeX.withUnsafeBufferPointer { ex in
          edgeY.withUnsafeBufferPointer { ey in
            edgeCos.withUnsafeBufferPointer { ec in
              edgeSin.withUnsafeBufferPointer { es in
                edgeOrder.withUnsafeBufferPointer { order in
                  for delta in -9...9 {
                    let bin = ((normalDegree + delta) % 180 + 180) % 180
                    for position in binStart[bin]..<binStart[bin + 1] {
                      let e = Int(order[position])
                      let x = Double(ex[e])
                      let y = Double(ey[e])
                      guard abs(nx * x + ny * y - offset) <= reach else { continue }
                      guard abs(nx * Double(ec[e]) + ny * Double(es[e])) > 0.990_215 else { continue }
                      xs.append(x)
                      ys.append(y)
                    }
                  }
                }
              }
            }
          }
        }
        guard xs.count >= 2 else { break }
        let mask = [Bool](repeating: true, count: xs.count)
        if pass == 0, let fitted = Line2.fit(xs, ys, count: xs.count, mask: mask) { line = fitted }
      }
      guard xs.count >= Int(minimumVotes) / 2 else { continue }
      // Skip a line that is a near copy of one already kept.
      let duplicate = lines.contains { other in
        abs(other.nx * line.nx + other.ny * line.ny) > 0.9986
          && abs(other.offset - line.offset * (other.nx * line.nx + other.ny * line.ny > 0 ? 1 : -1)) < 2
      }
      if duplicate { continue }
      let base = lines.count * occupancyLength
      occupancy.withUnsafeMutableBufferPointer { occupied in
        let row = occupied.baseAddress! + base
        row.update(repeating: 0, count: occupancyLength)
        for i in 0..<xs.count {
          let t = -line.ny * xs[i] + line.nx * ys[i]
          let bin = Int((t + Double(diagonal)) / Self.occupancyBin) + 1
          if bin >= 1 && bin < occupancyLength { row[bin] = 1 }
        }
        for bin in 1..<occupancyLength { row[bin] += row[bin - 1] }
      }
      lines.append(line)
    }
    self.diagonal = Double(diagonal)
  }

  private var diagonal = 0.0

  /// Reads how much of a segment on a line found has edges, from the
  /// occupancy prefix sums, without copying them.
  struct SupportReader {
    let lines: UnsafeBufferPointer<Line2>
    let occupancy: UnsafeBufferPointer<Int32>
    let length: Int
    let diagonal: Double

    /// The share of the middle of segment a–b on line `index` that has edges.
    func callAsFunction(_ index: Int, _ a: Point2, _ b: Point2) -> Double {
      let line = lines[index]
      var ta = -line.ny * a.x + line.nx * a.y
      var tb = -line.ny * b.x + line.nx * b.y
      if ta > tb { swap(&ta, &tb) }
      let span = tb - ta
      // Leave out the ends: the rounded corners and the neighbour sides.
      let start = ta + 0.12 * span
      let end = tb - 0.12 * span
      let first = max(1, Int((start + diagonal) / CardDetector.occupancyBin) + 1)
      let last = min(length - 1, Int((end + diagonal) / CardDetector.occupancyBin) + 1)
      guard last > first else { return 0 }
      let base = index * length
      let hits = occupancy[base + last] - occupancy[base + first - 1]
      return Double(hits) / Double(last - first + 1)
    }
  }

  private func withSupport<R>(_ body: (SupportReader) -> R) -> R {
    let length = occupancyLength
    let diagonal = diagonal
    return lines.withUnsafeBufferPointer { lines in
      occupancy.withUnsafeBufferPointer { occupancy in
        body(SupportReader(lines: lines, occupancy: occupancy, length: length, diagonal: diagonal))
      }
    }
  }

  /// The share of working pixels inside `quad` (corners in the coordinates
  /// of the image given to `detect`, clockwise), shrunk by `inset` towards
  /// its centre, that are edge points.
  func edgeDensity(_ quad: [Point2], inset: Double) -> Double {
    guard let search else { return 0 }
    let center = quad.reduce(Point2(0, 0)) { $0 + $1 } * 0.25
    let corners = quad.map { corner -> Point2 in
      let p = center + (corner - center) * (1 - inset)
      return Point2((p.x + 0.5) / search.scaleX - 0.5, (p.y + 0.5) / search.scaleY - 0.5)
    }
    let width = work.width
    let height = work.height
    let x0 = max(0, Int(corners.map(\.x).min()!.rounded(.down)))
    let x1 = min(width - 1, Int(corners.map(\.x).max()!.rounded(.up)))
    let y0 = max(0, Int(corners.map(\.y).min()!.rounded(.down)))
    let y1 = min(height - 1, Int(corners.map(\.y).max()!.rounded(.up)))
    guard x0 <= x1, y0 <= y1 else { return 0 }
    var inside = 0
    var edges = 0
    for y in y0...y1 {
      for x in x0...x1 {
        let p = Point2(Double(x), Double(y))
        var contained = true
        for k in 0..<4 {
          let a = corners[k]
          let b = corners[(k + 1) % 4]
          if (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x) < 0 {
            contained = false
            break
          }
        }
        guard contained else { continue }
        inside += 1
        if edgeMap[y * width + x] > 0 { edges += 1 }
      }
    }
    return inside == 0 ? 0 : Double(edges) / Double(inside)
  }

  /// How many lines found cross a side of `candidate` between 25% and 75%
  /// of its length, with edges on both sides of the crossing.
  private func crossingLines(_ candidate: Candidate) -> Int {
    let corners = candidate.corners
    var sideLines: [Line2] = []
    var lengths: [Double] = []
    for k in 0..<4 {
      let a = corners[k]
      let b = corners[(k + 1) % 4]
      sideLines.append(Line2(through: a, b))
      lengths.append(a.distance(to: b))
    }
    return withSupport { support in
      var count = 0
      for index in 0..<lines.count where !candidate.sides.contains(index) {
        let line = lines[index]
        // Along the line, unit length.
        let direction = Point2(-line.ny, line.nx)
        for k in 0..<4 {
          let side = sideLines[k]
          // Nearly parallel lines do not cross in a way that can be told.
          guard abs(side.nx * line.nx + side.ny * line.ny) < 0.9, let point = side.intersection(line) else {
            continue
          }
          let a = corners[k]
          let b = corners[(k + 1) % 4]
          let t = ((point.x - a.x) * (b.x - a.x) + (point.y - a.y) * (b.y - a.y)) / (lengths[k] * lengths[k])
          guard t > 0.25, t < 0.75 else { continue }
          let reach = max(6, 0.15 * min(lengths[k], lengths[(k + 1) % 4]))
          let before = support(index, point - direction * reach, point)
          guard before >= 0.6 else { continue }
          let after = support(index, point, point + direction * reach)
          if after >= 0.6 {
            count += 1
            break
          }
        }
      }
      return count
    }
  }

  /// The share of the middle of segment a–b on line `index` that has edges.
  func support(line index: Int, _ a: Point2, _ b: Point2) -> Double {
    withSupport { $0(index, a, b) }
  }

  /// Where every two lines found cross (row-major, `lines.count` square),
  /// nil when they are nearly parallel or cross outside the working image.
  private func crossings() -> [Point2?] {
    let count = lines.count
    let width = Double(work.width)
    let height = Double(work.height)
    var table = [Point2?](repeating: nil, count: count * count)
    for i in 0..<count {
      for j in i + 1..<count {
        guard let p = lines[i].intersection(lines[j]), p.x >= -1, p.y >= -1, p.x <= width, p.y <= height
        else { continue }
        table[i * count + j] = p
        table[j * count + i] = p
      }
    }
    return table
  }

  /// The share of the middle of segment a–b (any line) that has edge
  /// points across it, within a pixel and 12° of its direction.
  func segmentSupport(_ a: Point2, _ b: Point2) -> Double {
    let length = a.distance(to: b)
    guard length >= 4 else { return 0 }
    let width = work.width
    let height = work.height
    let dx = (b.x - a.x) / length
    let dy = (b.y - a.y) / length
    // The normal's direction in degrees, 0–179, as edge angles are kept.
    var normal = atan2(dx, -dy) * 180 / .pi
    if normal < 0 { normal += 180 }
    if normal >= 180 { normal -= 180 }
    let steps = Int(length * 0.76)
    var hits = 0
    var total = 0
    for step in 0..<steps {
      let t = 0.12 * length + Double(step) + 0.5
      let x = a.x + dx * t
      let y = a.y + dy * t
      total += 1
      search: for o in -1...1 {
        let px = Int((x - dy * Double(o)).rounded())
        let py = Int((y + dx * Double(o)).rounded())
        guard px >= 0, py >= 0, px < width, py < height else { continue }
        let e = edgeMap[py * width + px]
        guard e > 0 else { continue }
        var difference = abs(Double(e - 1) - normal)
        if difference > 90 { difference = 180 - difference }
        if difference <= 12 {
          hits += 1
          break search
        }
      }
    }
    return total == 0 ? 0 : Double(hits) / Double(total)
  }

  /// Cards seen on three sides: every pair of roughly opposite lines with a
  /// third joining them, completed by the card's proportions
  /// (`CardCompletion`), kept when the three sides are well backed by edges
  /// and the opposite lines do not run on past the completed corners.
  private func completions(minimumSide: Double, camera: PinholeCamera, crossing: [Point2?]) -> [Candidate] {
    let count = lines.count
    guard count >= 3 else { return [] }
    let width = Double(work.width)
    let height = Double(work.height)
    let lines = self.lines
    var found: [Candidate] = []
    withSupport { support in
      for i in 0..<count {
        for j in i + 1..<count {
          let cosine = lines[i].nx * lines[j].nx + lines[i].ny * lines[j].ny
          guard abs(cosine) > 0.766 else { continue }
          let separation = abs(lines[i].offset - lines[j].offset * (cosine > 0 ? 1 : -1))
          guard separation >= minimumSide * 0.6 else { continue }
          for k in 0..<count where k != i && k != j {
            let across = abs(lines[i].nx * lines[k].nx + lines[i].ny * lines[k].ny)
            guard across < 0.82 else { continue }
            guard let p0 = crossing[i * count + k], let p1 = crossing[k * count + j] else { continue }
            guard p0.distance(to: p1) >= minimumSide * 0.6 else { continue }
            let sb = support(k, p0, p1)
            guard sb >= 0.6 else { continue }
            CardCompletion.forEach(a1: lines[i], a2: lines[j], b: lines[k], p0: p0, p1: p1, camera: camera) {
              c0, c1, c2, c3 in
              guard c2.x >= -1, c2.y >= -1, c2.x <= width, c2.y <= height, c3.x >= -1, c3.y >= -1, c3.x <= width,
                c3.y <= height, Quad.isConvex(c0, c1, c2, c3)
              else { return }
              let sa2 = support(j, c1, c2)
              guard sa2 >= 0.5 else { return }
              let sa1 = support(i, c3, c0)
              guard sa1 >= 0.5 else { return }
              // A card's sides end at its corners; a longer shape's run on.
              let past1 = support(i, c3, c3 + (c3 - c0) * 0.25)
              let past2 = support(j, c2, c2 + (c2 - c1) * 0.25)
              guard past1 < 0.5 || past2 < 0.5 else { return }
              let s3 = segmentSupport(c2, c3)
              let perimeter =
                sb * c0.distance(to: c1) + sa2 * c1.distance(to: c2) + s3 * c2.distance(to: c3) + sa1
                * c3.distance(to: c0)
              let mean = (sb + sa2 + s3 + sa1) / 4
              var runOn = 0
              if past1 >= 0.5 { runOn += 1 }
              if past2 >= 0.5 { runOn += 1 }
              if support(i, c0, c0 + (c0 - c3) * 0.25) >= 0.5 { runOn += 1 }
              if support(k, c0, c0 + (c0 - c1) * 0.25) >= 0.5 { runOn += 1 }
              if support(k, c1, c1 + (c1 - c0) * 0.25) >= 0.5 { runOn += 1 }
              if support(j, c1, c1 + (c1 - c2) * 0.25) >= 0.5 { runOn += 1 }
              // Below a card found on all four sides of the same strength.
              let ending = exp(-Double(runOn) * Self.runOnPenalty)
              let score = perimeter * mean * 0.8 * ending
              let corners = Quad.clockwise([c0, c1, c2, c3])
              // The completed side runs from c2 to c3 whichever way round the corners went.
              let completed = (0..<4).first { k in
                (corners[k] == c2 && corners[(k + 1) % 4] == c3) || (corners[k] == c3 && corners[(k + 1) % 4] == c2)
              }
              found.append(
                Candidate(corners: corners, score: score, sides: [i, k, j, -1], completedSide: completed))
            }
          }
        }
      }
    }
    return found
  }

  private func quads(minimumSide: Double, camera: PinholeCamera, crossing: [Point2?]) -> [Candidate] {
    let count = lines.count
    guard count >= 4 else { return [] }
    let lines = self.lines
    // Roughly opposite pairs: within 40° of each other, far enough apart.
    var pairs: [(Int, Int)] = []
    for i in 0..<count {
      for j in i + 1..<count {
        let cosine = lines[i].nx * lines[j].nx + lines[i].ny * lines[j].ny
        guard abs(cosine) > 0.766 else { continue }
        let separation = abs(lines[i].offset - lines[j].offset * (cosine > 0 ? 1 : -1))
        guard separation >= minimumSide else { continue }
        pairs.append((i, j))
      }
    }
    // Per pair and line: how much of the line between the pair's two
    // lines has edges (0 when it crosses them outside the image); and the
    // lines worth pairing.
    var pairIndex = [Int](repeating: -1, count: count * count)
    for (index, pair) in pairs.enumerated() { pairIndex[pair.0 * count + pair.1] = index }
    var between = [Double](repeating: 0, count: pairs.count * count)
    var crossers = [[Int]](repeating: [], count: pairs.count)
    withSupport { support in
      for (index, (a1, a2)) in pairs.enumerated() {
        for b in 0..<count where b != a1 && b != a2 {
          guard let c0 = crossing[a1 * count + b], let c1 = crossing[b * count + a2] else { continue }
          let s = support(b, c0, c1)
          between[index * count + b] = s
          if s >= 0.3 { crossers[index].append(b) }
        }
      }
    }
    var found: [Candidate] = []
    let cardCorners = CardFormat.corners
    let shortestSide = minimumSide * 0.6
    for p in 0..<pairs.count {
      let (a1, a2) = pairs[p]
      let across = crossers[p]
      guard across.count >= 2 else { continue }
      for first in 0..<across.count - 1 {
        for second in first + 1..<across.count {
          let b1 = across[first]
          let b2 = across[second]
          // Each quadrilateral once: (a1, a2) is the earlier pair.
          let q = pairIndex[b1 * count + b2]
          guard q > p else { continue }
          // The two directions must differ by 35° or more.
          let cosine = abs(lines[a1].nx * lines[b1].nx + lines[a1].ny * lines[b1].ny)
          guard cosine < 0.82 else { continue }
          let s1 = between[q * count + a2]
          guard s1 >= 0.3 else { continue }
          let s3 = between[q * count + a1]
          guard s3 >= 0.3 else { continue }
          let s0 = between[p * count + b1]
          let s2 = between[p * count + b2]
          let mean = (s0 + s1 + s2 + s3) / 4
          guard mean >= 0.65 else { continue }
          guard let c0 = crossing[a1 * count + b1], let c1 = crossing[b1 * count + a2],
            let c2 = crossing[a2 * count + b2], let c3 = crossing[b2 * count + a1]
          else { continue }
          guard Quad.isConvex(c0, c1, c2, c3) else { continue }
          let side0 = c0.distance(to: c1)
          let side1 = c1.distance(to: c2)
          let side2 = c2.distance(to: c3)
          let side3 = c3.distance(to: c0)
          guard min(side0, side1, side2, side3) >= shortestSide else { continue }
          // A card's shape for this camera, in one of its two orientations.
          let ordered = Quad.clockwise([c0, c1, c2, c3])
          var residual = Double.infinity
          for start in 0..<2 {
            let image = (0..<4).map { ordered[(start + $0) % 4] }
            guard let h = Homography(from: cardCorners, to: image),
              let result = CardPose.from(homography: h, camera: camera)
            else { continue }
            residual = min(residual, result.residual)
          }
          guard residual < 0.2 else { continue }
          let perimeter = s0 * side0 + s1 * side1 + s2 * side2 + s3 * side3
          // A card's sides end at its corners; lines of the clutter behind
          // it that happen to make a card's shape mostly run on.
          let runOn = withSupport { support in
            var count = 0
            if support(a1, c0, c0 + (c0 - c3) * 0.25) >= 0.5 { count += 1 }
            if support(b1, c0, c0 + (c0 - c1) * 0.25) >= 0.5 { count += 1 }
            if support(b1, c1, c1 + (c1 - c0) * 0.25) >= 0.5 { count += 1 }
            if support(a2, c1, c1 + (c1 - c2) * 0.25) >= 0.5 { count += 1 }
            if support(a2, c2, c2 + (c2 - c1) * 0.25) >= 0.5 { count += 1 }
            if support(b2, c2, c2 + (c2 - c3) * 0.25) >= 0.5 { count += 1 }
            if support(b2, c3, c3 + (c3 - c2) * 0.25) >= 0.5 { count += 1 }
            if support(a1, c3, c3 + (c3 - c0) * 0.25) >= 0.5 { count += 1 }
            return count
          }
          let ending = exp(-Double(runOn) * Self.runOnPenalty)
          found.append(
            Candidate(
              corners: ordered, score: perimeter * mean * exp(-residual / Self.residualScale) * ending,
              sides: [a1, b1, a2, b2]))
        }
      }
    }
    return found
  }
}
