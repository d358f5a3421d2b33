import CardGeometry
import Foundation
import Imaging

/// The card's image: its glare, the card as printed with the perspective
/// removed, and a region of it cut out.
extension CardEstimator {
  /// Share of the card's area at or above `level`: the frame read
  /// at a grid of points on the card (every 0.8 mm, a band of 1/50 of the
  /// card's width left out along its border), nearest pixels.
  static func glareShare(_ image: ImageBuffer, homography: Homography, level: UInt8) -> Double {
    let columns = 107
    let rows = 67
    let marginX = CardFormat.width / 50
    let marginY = CardFormat.height / 50
    let stepX = (CardFormat.width - 2 * marginX) / Double(columns - 1)
    let stepY = (CardFormat.height - 2 * marginY) / Double(rows - 1)
    let m = homography.matrix.m
    let width = image.width
    let maxX = Double(image.width - 1)
    let maxY = Double(image.height - 1)
    var hits = 0
    for row in 0..<rows {
      let cardY = -CardFormat.height / 2 + marginY + Double(row) * stepY
      let cardX0 = -CardFormat.width / 2 + marginX
      var u = m[0] * cardX0 + m[1] * cardY + m[2]
      var v = m[3] * cardX0 + m[4] * cardY + m[5]
      var w = m[6] * cardX0 + m[7] * cardY + m[8]
      for _ in 0..<columns {
        let x = Int(max(0, min(maxX, u / w)) + 0.5)
        let y = Int(max(0, min(maxY, v / w)) + 0.5)
        if image.pixels[y * width + x] >= level { hits += 1 }
        u += m[0] * stepX
        v += m[3] * stepX
        w += m[6] * stepX
      }
    }
    return Double(hits) / Double(columns * rows)
  }

  /// Samples `source` (gray8 or rgb8) through `homography` (card
  /// millimetres to pixels of `source`) into `destination`, which keeps its
  /// size and takes `source`'s format: the card as printed, perspective removed.
  public static func rectify(_ source: ImageBuffer, homography: Homography, into destination: ImageBuffer) {
    let width = max(1, destination.width)
    let height = max(1, destination.height)
    destination.reshape(width: width, height: height, format: source.format)
    let channels = source.format.bytesPerPixel
    let m = homography.matrix.m
    let stepX = CardFormat.width / Double(width)
    let stepY = CardFormat.height / Double(height)
    let sourceWidth = source.width
    let maxX = Double(source.width - 1)
    let maxY = Double(source.height - 1)
    let input = source.pixels
    let output = destination.pixels
    for row in 0..<height {
      let cardY = (Double(row) + 0.5) * stepY - CardFormat.height / 2
      let cardX0 = 0.5 * stepX - CardFormat.width / 2
      var u = m[0] * cardX0 + m[1] * cardY + m[2]
      var v = m[3] * cardX0 + m[4] * cardY + m[5]
      var w = m[6] * cardX0 + m[7] * cardY + m[8]
      let du = m[0] * stepX
      let dv = m[3] * stepX
      let dw = m[6] * stepX
      var out = output + row * width * channels
      for _ in 0..<width {
        let x = max(0, min(maxX, u / w))
        let y = max(0, min(maxY, v / w))
        let ix = min(sourceWidth - 2, Int(x))
        let iy = min(source.height - 2, Int(y))
        let fx = x - Double(ix)
        let fy = y - Double(iy)
        let p = input + (iy * sourceWidth + ix) * channels
        let below = sourceWidth * channels
        for c in 0..<channels {
          let top = Double(p[c]) * (1 - fx) + Double(p[c + channels]) * fx
          let bottom = Double(p[below + c]) * (1 - fx) + Double(p[below + c + channels]) * fx
          out[c] = UInt8(top * (1 - fy) + bottom * fy + 0.5)
        }
        out += channels
        u += du
        v += dv
        w += dw
      }
    }
  }

  /// Copies the part of `rectified` inside `region` (normalised card
  /// coordinates; the layout's portrait when nil) into `destination`.
  /// False when there is no card or the region is empty.
  @discardableResult
  public func cropPortrait(into destination: ImageBuffer, region: NormalizedRect? = nil) -> Bool {
    guard lastObservation != nil else { return false }
    return Self.crop(lastRectified, region: region ?? settings.layout.portrait, into: destination)
  }

  /// Copies `region` (normalised card coordinates) of a rectified card image.
  @discardableResult
  public static func crop(_ rectified: ImageBuffer, region: NormalizedRect, into destination: ImageBuffer) -> Bool {
    let x0 = Int((region.x * Double(rectified.width)).rounded())
    let y0 = Int((region.y * Double(rectified.height)).rounded())
    let x1 = Int((region.maxX * Double(rectified.width)).rounded())
    let y1 = Int((region.maxY * Double(rectified.height)).rounded())
    guard
      let inside = try? ImageConversion.crop(
        rectified, x: x0, y: y0, width: x1 - x0, height: y1 - y0, into: destination),
      inside.width > 0, inside.height > 0
    else { return false }
    return true
  }
}
