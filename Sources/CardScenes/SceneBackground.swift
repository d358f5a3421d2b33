import Foundation
import Imaging
import Randomness

/// A cluttered table top behind the card, the same for the same seed: a
/// wood-like gradient, sheets and objects (rectangles at any angle, of low
/// to high contrast), a few ellipses and straight lines (cables, pens).
///
/// No rectangle has a card-like side ratio (1.4 to 1.8): a background alone
/// must never contain a card, which the tests rely on.
public enum SceneBackground {
  public static func make(width: Int, height: Int, seed: UInt64) -> ImageBuffer {
    let image = ImageBuffer(width: width, height: height, format: .rgb8)
    var random = SeededRandom(seed: seed)
    let base = (random.uniform(90, 170), random.uniform(70, 130), random.uniform(40, 100))
    let grainFrequency = random.uniform(0.02, 0.06)
    let phase = random.uniform(0, 6.28)
    let tiltX = random.uniform(-40, 40) / Double(width)
    let tiltY = random.uniform(-40, 40) / Double(height)
    for y in 0..<height {
      for x in 0..<width {
        let grain = 10 * sin(Double(y) * grainFrequency + 3 * sin(Double(x) * 0.004 + phase))
        let light = 1 + tiltX * Double(x - width / 2) / 100 + tiltY * Double(y - height / 2) / 100
        let offset = (y * width + x) * 3
        image.pixels[offset] = clampByte((base.0 + grain) * light)
        image.pixels[offset + 1] = clampByte((base.1 + grain * 0.8) * light)
        image.pixels[offset + 2] = clampByte((base.2 + grain * 0.5) * light)
      }
    }
    let scale = Double(min(width, height))
    for _ in 0..<random.integer(8...14) {
      var sideA = random.uniform(0.08, 0.6) * scale
      var ratio = random.uniform(1, 3)
      if ratio > 1.3 && ratio < 1.9 { ratio = random.uniform(0, 1) < 0.5 ? 1.2 : 2.1 }
      if random.uniform(0, 1) < 0.5 { sideA /= ratio }
      let sideB = sideA * ratio
      let color = randomColor(&random)
      fillRotatedRectangle(
        image, cx: random.uniform(0, Double(width)), cy: random.uniform(0, Double(height)), halfWidth: sideA / 2,
        halfHeight: sideB / 2, angle: random.uniform(0, .pi), color: color)
    }
    for _ in 0..<random.integer(2...4) {
      let color = randomColor(&random)
      let r = random.uniform(0.05, 0.2) * scale
      fillEllipse(
        image, cx: random.uniform(0, Double(width)), cy: random.uniform(0, Double(height)), rx: r,
        ry: r * random.uniform(0.5, 1), color: color)
    }
    for _ in 0..<random.integer(5...10) {
      let color = randomColor(&random)
      let x0 = random.uniform(0, Double(width))
      let y0 = random.uniform(0, Double(height))
      let angle = random.uniform(0, .pi)
      let length = random.uniform(0.2, 1) * scale
      fillRotatedRectangle(
        image, cx: x0, cy: y0, halfWidth: length / 2, halfHeight: random.uniform(0.5, 3), angle: angle, color: color)
    }
    return image
  }

  private static func clampByte(_ value: Double) -> UInt8 { UInt8(max(0, min(255, value.rounded()))) }

  private static func randomColor(_ random: inout SeededRandom) -> (Double, Double, Double) {
    let level = random.uniform(15, 245)
    return (
      level + random.uniform(-40, 40), level + random.uniform(-40, 40), level + random.uniform(-40, 40)
    )
  }

  static func fillRotatedRectangle(
    _ image: ImageBuffer, cx: Double, cy: Double, halfWidth: Double, halfHeight: Double, angle: Double,
    color: (Double, Double, Double)
  ) {
    let c = cos(angle)
    let s = sin(angle)
    let reach = (halfWidth * halfWidth + halfHeight * halfHeight).squareRoot() + 1
    let x0 = max(0, Int(cx - reach))
    let x1 = min(image.width - 1, Int(cx + reach))
    let y0 = max(0, Int(cy - reach))
    let y1 = min(image.height - 1, Int(cy + reach))
    guard x0 <= x1, y0 <= y1 else { return }
    for y in y0...y1 {
      for x in x0...x1 {
        let dx = Double(x) - cx
        let dy = Double(y) - cy
        let u = abs(dx * c + dy * s) - halfWidth
        let v = abs(-dx * s + dy * c) - halfHeight
        // Coverage of a one-pixel-wide edge, for a smooth outline.
        let coverage = max(0, min(1, 0.5 - max(u, v)))
        if coverage > 0 { blend(image, x, y, color, coverage) }
      }
    }
  }

  static func fillEllipse(
    _ image: ImageBuffer, cx: Double, cy: Double, rx: Double, ry: Double, color: (Double, Double, Double)
  ) {
    let x0 = max(0, Int(cx - rx - 1))
    let x1 = min(image.width - 1, Int(cx + rx + 1))
    let y0 = max(0, Int(cy - ry - 1))
    let y1 = min(image.height - 1, Int(cy + ry + 1))
    guard x0 <= x1, y0 <= y1 else { return }
    for y in y0...y1 {
      for x in x0...x1 {
        let dx = (Double(x) - cx) / rx
        let dy = (Double(y) - cy) / ry
        let distance = ((dx * dx + dy * dy).squareRoot() - 1) * min(rx, ry)
        let coverage = max(0, min(1, 0.5 - distance))
        if coverage > 0 { blend(image, x, y, color, coverage) }
      }
    }
  }

  private static func blend(_ image: ImageBuffer, _ x: Int, _ y: Int, _ color: (Double, Double, Double), _ a: Double) {
    let offset = (y * image.width + x) * 3
    let p = image.pixels
    p[offset] = clampByte(Double(p[offset]) * (1 - a) + color.0 * a)
    p[offset + 1] = clampByte(Double(p[offset + 1]) * (1 - a) + color.1 * a)
    p[offset + 2] = clampByte(Double(p[offset + 2]) * (1 - a) + color.2 * a)
  }
}
