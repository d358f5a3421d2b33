import CardGeometry
import Foundation
import Imaging

/// The detector's edge field: thin edges of the working image (Sobel on its
/// luma or its colour, non-maximum suppression), each with its gradient
/// direction, and how much of a segment or region they cover.
extension CardDetector {
  /// Sobel magnitude below which a pixel is no edge (about a 10-level step).
  static let edgeThreshold: Float = 40

  /// Block averages of `factor` × `factor` pixels of an rgb8 image (the
  /// same as `ImageConversion.resize` for a whole-number factor): the
  /// rows of a band are summed first, reading memory in order.
  func reduceColor(_ source: ImageBuffer, factor: Int, into destination: ImageBuffer) {
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

  /// Finds the edge points of the working image (of its colour copy when
  /// `color`), ordered by direction, and marks them in `edgeMap`.
  func findEdges(color: Bool) {
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
}
