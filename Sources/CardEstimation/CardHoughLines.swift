import CardGeometry
import Foundation
import Imaging

/// The detector's lines: a Hough transform voted along each edge's
/// gradient, each peak refitted to its own edge points, and where along
/// each line there are edges.
extension CardDetector {
  // Hough space: 180 one-degree angles × offsets of one pixel.
  private static let angleBins = 180
  /// Pixels along a line per bin of its edge occupancy.
  private static let occupancyBin = 2.0
  /// The strongest lines kept, at most.
  static let maximumLines = 60

  /// Finds the lines of the edge field with at least `minimumVotes` votes
  /// into `lines`, each with its edge occupancy.
  func findLines(minimumVotes: Int32) {
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

  /// Runs `body` with a reader of the lines' edge occupancy.
  func withSupport<R>(_ body: (SupportReader) -> R) -> R {
    let length = occupancyLength
    let diagonal = diagonal
    return lines.withUnsafeBufferPointer { lines in
      occupancy.withUnsafeBufferPointer { occupancy in
        body(SupportReader(lines: lines, occupancy: occupancy, length: length, diagonal: diagonal))
      }
    }
  }

  /// Where every two lines found cross (row-major, `lines.count` square),
  /// nil when they are nearly parallel or cross outside the working image.
  func crossings() -> [Point2?] {
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
}
