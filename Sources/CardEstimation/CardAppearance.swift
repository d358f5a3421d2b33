import CardGeometry
import Foundation
import Imaging

/// Follows a card by what is printed on it, for the frames where its
/// borders cannot be told from what is behind it (a pale card on a pale
/// sheet, a side smeared by a fast turn): the card's face as seen in the
/// last frame whose borders were found (a grid of points over the card,
/// read from a copy of the frame scaled so the points are a pixel or two
/// apart) is aligned with the new frame by Gauss–Newton over the four
/// corners and a gain and offset of brightness, coarse to fine. The face is
/// kept in the card's own coordinates and taken only from frames whose
/// borders were found, so errors do not add up from frame to frame.
/// Buffers are allocated once and reused.
final class CardAppearance {
  /// Grid points across and down the card at the fine level; the coarse
  /// level has half as many each way.
  static let columns = 48
  static let rows = 30
  /// Share of the card's width and height left out along its border, where
  /// the background shows through the rounded corners and the smear of motion.
  static let margin = 0.04
  /// Image pixels between grid points at the fine level.
  static let spacing = 1.5
  /// How far beyond the card, in card sizes, the frame is read for an
  /// alignment: more than it moves between two frames.
  static let alignmentReach = 0.5

  /// The frame at one scale around the card, with its gradients, and the
  /// face as seen at it.
  private final class Level {
    let columns: Int
    let rows: Int
    /// Pixels of the frame per pixel of this level.
    var factor: Int
    let template: UnsafeMutablePointer<Float>
    /// Where the window held starts, in pixels of the whole level, and its size.
    private(set) var originX = 0
    private(set) var originY = 0
    private(set) var width = 0
    private(set) var height = 0
    private(set) var image = UnsafeMutablePointer<Float>.allocate(capacity: 1)
    private(set) var gradX = UnsafeMutablePointer<Float>.allocate(capacity: 1)
    private(set) var gradY = UnsafeMutablePointer<Float>.allocate(capacity: 1)
    private var capacity = 1

    init(columns: Int, rows: Int, factor: Int) {
      self.columns = columns
      self.rows = rows
      self.factor = factor
      template = .allocate(capacity: columns * rows)
      template.initialize(repeating: 0, count: columns * rows)
    }

    deinit {
      for pointer in [template, image, gradX, gradY] { pointer.deallocate() }
    }

    func reshape(originX: Int, originY: Int, width: Int, height: Int) {
      self.originX = originX
      self.originY = originY
      self.width = width
      self.height = height
      let count = width * height
      guard count > capacity else { return }
      for pointer in [image, gradX, gradY] { pointer.deallocate() }
      image = .allocate(capacity: count)
      gradX = .allocate(capacity: count)
      gradY = .allocate(capacity: count)
      for pointer in [image, gradX, gradY] { pointer.initialize(repeating: 0, count: count) }
      capacity = count
    }

    /// Where the window lies, read once for a pass over the grid.
    var window: Window { Window(originX: Double(originX), originY: Double(originY), width: width, height: height) }

    /// Central differences, zero along the border.
    func computeGradient() {
      for y in 1..<height - 1 {
        for x in 1..<width - 1 {
          let i = y * width + x
          gradX[i] = (image[i + 1] - image[i - 1]) / 2
          gradY[i] = (image[i + width] - image[i - width]) / 2
        }
      }
    }
  }

  /// A level's window, for bilinear reads at points of the whole level.
  private struct Window {
    let originX: Double
    let originY: Double
    let width: Int
    let height: Int

    /// The value at `p` (pixels of the whole level), nil too near the
    /// window's border for its gradients.
    @inline(__always)
    func bilinear(_ values: UnsafeMutablePointer<Float>, _ p: Point2) -> Float? {
      let x = p.x - originX
      let y = p.y - originY
      guard x >= 1, y >= 1, x < Double(width - 2), y < Double(height - 2) else { return nil }
      let ix = Int(x)
      let iy = Int(y)
      let fx = Float(x - Double(ix))
      let fy = Float(y - Double(iy))
      let i = iy * width + ix
      let top = values[i] * (1 - fx) + values[i + 1] * fx
      let bottom = values[i + width] * (1 - fx) + values[i + width + 1] * fx
      return top * (1 - fy) + bottom * fy
    }
  }

  /// Coarse, then fine.
  private let levels = [
    Level(columns: CardAppearance.columns / 2, rows: CardAppearance.rows / 2, factor: 2),
    Level(columns: CardAppearance.columns, rows: CardAppearance.rows, factor: 1),
  ]
  /// Whether a face was captured, and when.
  private(set) var hasTemplate = false
  private(set) var capturedAt = 0.0
  // Scratch for one Gauss–Newton step, allocated once: per grid point, how
  // its brightness changes with each corner coordinate, whether it is in
  // the frame, and its residual; the normal equations. Raw memory, not
  // arrays held by the object: every access to those is checked for
  // exclusivity, hundreds of thousands of times an alignment.
  private static let gridCount = columns * rows
  private let jacobian = UnsafeMutablePointer<Double>.allocate(capacity: gridCount * 8)
  private let valid = UnsafeMutablePointer<Bool>.allocate(capacity: gridCount)
  private let residuals = UnsafeMutablePointer<Double>.allocate(capacity: gridCount)
  private let magnitudes = UnsafeMutablePointer<Double>.allocate(capacity: gridCount)
  /// The normal equations, augmented: 10 rows of 10 coefficients and the right-hand side.
  private let normal = UnsafeMutablePointer<Double>.allocate(capacity: 110)
  private var system = [Double](repeating: 0, count: 110)
  /// The warp moved by each corner coordinate in turn.
  private let moved = UnsafeMutablePointer<Warp>.allocate(capacity: 8)

  init() {
    jacobian.initialize(repeating: 0, count: Self.gridCount * 8)
    valid.initialize(repeating: false, count: Self.gridCount)
    residuals.initialize(repeating: 0, count: Self.gridCount)
    magnitudes.initialize(repeating: 0, count: Self.gridCount)
    normal.initialize(repeating: 0, count: 110)
    moved.initialize(repeating: Warp(.init(.identity)), count: 8)
  }

  deinit {
    for pointer in [jacobian, residuals, magnitudes, normal] { pointer.deallocate() }
    valid.deallocate()
    moved.deallocate()
  }

  /// Forgets the face captured.
  func reset() { hasTemplate = false }

  /// The grid point (column, row) of a level, in the unit square the
  /// quadrilateral's corners are mapped from.
  @inline(__always)
  private static func gridPoint(_ column: Int, _ row: Int, columns: Int, rows: Int) -> Point2 {
    let m = margin
    return Point2(
      m + (1 - 2 * m) * (Double(column) + 0.5) / Double(columns), m + (1 - 2 * m) * (Double(row) + 0.5) / Double(rows))
  }

  private static let unitSquare = [Point2(0, 0), Point2(1, 0), Point2(1, 1), Point2(0, 1)]

  /// Takes the face of the card with corners `quad` (pixels of `gray`, in
  /// printed order: `align` and `match` are given the same order) from `gray`.
  func capture(_ gray: ImageBuffer, quad: [Point2], t: Double) {
    hasTemplate = false
    capturedAt = t
    let width = (quad[0].distance(to: quad[1]) + quad[3].distance(to: quad[2])) / 2
    let fine = max(1, Int(width / (Double(Self.columns) * Self.spacing)))
    guard buildLevels(gray, fineFactor: fine, around: quad, reach: 0) else { return }
    for index in levels.indices {
      let level = levels[index]
      guard let h = Homography(from: Self.unitSquare, to: quad.map { toLevel($0, level) }).map(Warp.init) else {
        return
      }
      let window = level.window
      var count = 0
      for row in 0..<level.rows {
        for column in 0..<level.columns {
          let p = h.apply(Self.gridPoint(column, row, columns: level.columns, rows: level.rows))
          guard let value = window.bilinear(level.image, p) else { return }
          level.template[count] = value
          count += 1
        }
      }
    }
    hasTemplate = true
  }

  /// The card's corners in `gray` found by aligning the face captured,
  /// starting from `quad`; nil when it could not be aligned. How well it
  /// then matches is `match`'s to say (the caller may move the corners first).
  func align(_ gray: ImageBuffer, quad: [Point2]) -> [Point2]? {
    guard hasTemplate, buildLevels(gray, fineFactor: levels[1].factor, around: quad, reach: Self.alignmentReach)
    else { return nil }
    var corners = quad
    var gain = 1.0
    var offset = 0.0
    for index in levels.indices {
      var levelCorners = corners.map { toLevel($0, levels[index]) }
      for _ in 0..<12 {
        guard
          let step = gaussNewtonStep(
            levels[index], corners: levelCorners, gain: gain, offset: offset)
        else { return nil }
        for k in 0..<4 { levelCorners[k] = levelCorners[k] + Point2(step[2 * k], step[2 * k + 1]) }
        gain += step[8]
        offset += step[9]
        let largest = (0..<4).map { Point2(step[2 * $0], step[2 * $0 + 1]).length }.max() ?? 0
        if largest < 0.02 { break }
      }
      corners = levelCorners.map { fromLevel($0, levels[index]) }
    }
    return corners
  }

  /// How well the face captured matches `gray` at `quad` (zero-mean
  /// normalised correlation), nil when too little of it is in the frame.
  func match(_ gray: ImageBuffer, quad: [Point2]) -> Double? {
    guard hasTemplate, buildLevels(gray, fineFactor: levels[1].factor, around: quad, reach: 0) else { return nil }
    return correlation(level: 1, quad: quad.map { toLevel($0, levels[1]) })
  }

  private func correlation(level index: Int, quad: [Point2]) -> Double? {
    let level = levels[index]
    guard let h = Homography(from: Self.unitSquare, to: quad).map(Warp.init) else { return nil }
    let (window, image, template) = (level.window, level.image, level.template)
    var n = 0.0
    var st = 0.0
    var si = 0.0
    var stt = 0.0
    var sii = 0.0
    var sti = 0.0
    var point = 0
    for row in 0..<level.rows {
      for column in 0..<level.columns {
        defer { point += 1 }
        let p = h.apply(Self.gridPoint(column, row, columns: level.columns, rows: level.rows))
        guard let value = window.bilinear(image, p) else { continue }
        let t = Double(template[point])
        let i = Double(value)
        n += 1
        st += t
        si += i
        stt += t * t
        sii += i * i
        sti += t * i
      }
    }
    guard n >= 0.9 * Double(level.columns * level.rows) else { return nil }
    let covariance = sti - st * si / n
    let varianceT = stt - st * st / n
    let varianceI = sii - si * si / n
    guard varianceT > 0, varianceI > 0 else { return nil }
    return covariance / (varianceT * varianceI).squareRoot()
  }

  /// One Gauss–Newton step for the corners (level pixels), gain and offset:
  /// [dx0, dy0, …, dx3, dy3, dgain, doffset]; nil when too little of the
  /// card is in the frame or the system is singular.
  private func gaussNewtonStep(_ level: Level, corners: [Point2], gain: Double, offset: Double) -> [Double]? {
    guard let h = Homography(from: Self.unitSquare, to: corners).map(Warp.init) else { return nil }
    let count = level.columns * level.rows
    // How each grid point moves with each corner coordinate.
    let epsilon = 0.5
    for parameter in 0..<8 {
      var shifted = corners
      if parameter % 2 == 0 {
        shifted[parameter / 2].x += epsilon
      } else {
        shifted[parameter / 2].y += epsilon
      }
      guard let m = Homography(from: Self.unitSquare, to: shifted) else { return nil }
      moved[parameter] = Warp(m)
    }
    let window = level.window
    let (image, gradX, gradY, template) = (level.image, level.gradX, level.gradY, level.template)
    let (jacobian, valid, residuals, moved) = (jacobian, valid, residuals, moved)
    let (columns, rows) = (level.columns, level.rows)
    var point = 0
    var inside = 0
    for row in 0..<rows {
      for column in 0..<columns {
        let g = Self.gridPoint(column, row, columns: columns, rows: rows)
        let p = h.apply(g)
        if let value = window.bilinear(image, p), let gx = window.bilinear(gradX, p), let gy = window.bilinear(gradY, p)
        {
          valid[point] = true
          for parameter in 0..<8 {
            let q = moved[parameter].apply(g)
            let dx = (q.x - p.x) / epsilon
            let dy = (q.y - p.y) / epsilon
            jacobian[point * 8 + parameter] = Double(gx) * dx + Double(gy) * dy
          }
          residuals[inside] = gain * Double(template[point]) + offset - Double(value)
          inside += 1
        } else {
          valid[point] = false
        }
        point += 1
      }
    }
    guard inside >= count / 2 else { return nil }
    // Huber weights: glare that came or went is not the card moving.
    for k in 0..<inside { magnitudes[k] = abs(residuals[k]) }
    let median = Self.select(magnitudes, count: inside, rank: inside / 2)
    let scale = max(2.0, 1.4826 * median)
    let limit = 1.5 * scale
    let normal = normal
    normal.update(repeating: 0, count: 110)
    var r = 0
    for point in 0..<count where valid[point] {
      let residual = residuals[r]
      r += 1
      let weight = abs(residual) <= limit ? 1 : limit / abs(residual)
      let jacobianRow = jacobian + point * 8
      // The point's row of the Jacobian: the eight corner coordinates, then gain and offset.
      @inline(__always) func entry(_ k: Int) -> Double {
        k < 8 ? jacobianRow[k] : (k == 8 ? -Double(template[point]) : -1)
      }
      for a in 0..<10 {
        let wa = weight * entry(a)
        normal[a * 11 + 10] += wa * residual
        for b in a..<10 { normal[a * 11 + b] += wa * entry(b) }
      }
    }
    for a in 0..<10 {
      for b in 0..<a { normal[a * 11 + b] = normal[b * 11 + a] }
      // A little damping keeps a poorly seen corner from running off.
      normal[a * 11 + a] *= 1.001
      normal[a * 11 + a] += 1e-6
    }
    for k in 0..<110 { system[k] = normal[k] }
    return LinearSystem.solve(&system, size: 10)
  }

  /// The value of rank `rank` (0-based) among `count` values, as sorting
  /// them would give (the values are reordered): Hoare's selection, linear
  /// on average where a sort is not.
  static func select(_ values: UnsafeMutablePointer<Double>, count: Int, rank: Int) -> Double {
    var low = 0
    var high = count - 1
    while low < high {
      let pivot = values[low + (high - low) / 2]
      var i = low
      var j = high
      while i <= j {
        while values[i] < pivot { i += 1 }
        while values[j] > pivot { j -= 1 }
        if i <= j {
          (values[i], values[j]) = (values[j], values[i])
          i += 1
          j -= 1
        }
      }
      if rank <= j {
        high = j
      } else if rank >= i {
        low = i
      } else {
        break
      }
    }
    return values[rank]
  }

  /// A homography's nine coefficients held inline (`Matrix3` keeps them in
  /// an array): applied nine times at every grid point of every step.
  struct Warp {
    let m0, m1, m2, m3, m4, m5, m6, m7, m8: Double

    init(_ h: Homography) {
      let m = h.matrix.m
      (m0, m1, m2, m3, m4, m5, m6, m7, m8) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
    }

    /// As `Homography.apply`, to the last bit.
    @inline(__always)
    func apply(_ p: Point2) -> Point2 {
      let w = m6 * p.x + m7 * p.y + m8
      return Point2((m0 * p.x + m1 * p.y + m2) / w, (m3 * p.x + m4 * p.y + m5) / w)
    }
  }

  @inline(__always)
  private func toLevel(_ p: Point2, _ level: Level) -> Point2 {
    let f = Double(level.factor)
    return Point2((p.x + 0.5) / f - 0.5, (p.y + 0.5) / f - 0.5)
  }

  @inline(__always)
  private func fromLevel(_ p: Point2, _ level: Level) -> Point2 {
    let f = Double(level.factor)
    return Point2((p.x + 0.5) * f - 0.5, (p.y + 0.5) * f - 0.5)
  }

  /// The fine factor and the window of the frame (pixels, a whole number
  /// of coarse blocks) the levels were last built for in this frame, nil
  /// when they are still to be built.
  private var built: (factor: Int, x0: Int, y0: Int, x1: Int, y1: Int)?

  /// Called once per frame, before `capture`, `align` or `match`.
  func newFrame() { built = nil }

  /// Block averages of `gray` at the fine factor and twice it, with their
  /// central-difference gradients, around `quad` and `reach` times its size
  /// beyond it (room for the card to move while it is aligned): the rest of
  /// the frame is never read. False when the frame or the window is too small.
  private func buildLevels(_ gray: ImageBuffer, fineFactor: Int, around quad: [Point2], reach: Double) -> Bool {
    let f = fineFactor
    let block = 2 * f
    // The whole frame in coarse blocks.
    let limitX = gray.width / block * block
    let limitY = gray.height / block * block
    guard limitX / block >= 8, limitY / block >= 8 else { return false }
    let xs = quad.map(\.x)
    let ys = quad.map(\.y)
    guard let minX = xs.min(), let maxX = xs.max(), let minY = ys.min(), let maxY = ys.max() else { return false }
    let margin = reach * max(maxX - minX, maxY - minY) + Double(2 * block)
    func snap(_ value: Double, limit: Int, up: Bool) -> Int {
      guard value.isFinite else { return up ? limit : 0 }
      let blocks = max(0, min(Double(limit), value)) / Double(block)
      return Int(up ? blocks.rounded(.up) : blocks.rounded(.down)) * block
    }
    var x0 = snap(minX - margin, limit: limitX, up: false)
    var y0 = snap(minY - margin, limit: limitY, up: false)
    var x1 = snap(maxX + margin, limit: limitX, up: true)
    var y1 = snap(maxY + margin, limit: limitY, up: true)
    if let built, built.factor == f {
      if built.x0 <= x0, built.y0 <= y0, built.x1 >= x1, built.y1 >= y1 { return true }
      x0 = min(x0, built.x0)
      y0 = min(y0, built.y0)
      x1 = max(x1, built.x1)
      y1 = max(y1, built.y1)
    }
    built = nil
    // At least four coarse blocks each way, for the gradients.
    guard x1 - x0 >= 4 * block, y1 - y0 >= 4 * block else { return false }
    levels[1].factor = f
    levels[0].factor = block
    let fine = levels[1]
    let coarse = levels[0]
    let width = (x1 - x0) / f
    let height = (y1 - y0) / f
    fine.reshape(originX: x0 / f, originY: y0 / f, width: width, height: height)
    coarse.reshape(originX: x0 / block, originY: y0 / block, width: width / 2, height: height / 2)
    let area = Float(f * f)
    let stride = gray.width
    let pixels = gray.pixels
    for y in 0..<height {
      for x in 0..<width {
        var sum = 0
        for dy in 0..<f {
          let line = pixels + (y0 + y * f + dy) * stride + x0 + x * f
          for dx in 0..<f { sum += Int(line[dx]) }
        }
        fine.image[y * width + x] = Float(sum) / area
      }
    }
    // The coarse level from the fine one, two by two.
    let coarseWidth = width / 2
    for y in 0..<height / 2 {
      for x in 0..<coarseWidth {
        let i = 2 * y * width + 2 * x
        coarse.image[y * coarseWidth + x] =
          (fine.image[i] + fine.image[i + 1] + fine.image[i + width] + fine.image[i + width + 1]) / 4
      }
    }
    fine.computeGradient()
    coarse.computeGradient()
    built = (f, x0, y0, x1, y1)
    return true
  }
}
