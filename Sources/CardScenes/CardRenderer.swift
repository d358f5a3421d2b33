import CardGeometry
import Foundation
import Imaging

/// Draws a card into camera frames: every pixel near the card is mapped
/// back to the card plane through the inverse homography and sampled
/// bilinearly from the texture level that fits its scale; the outline
/// (rounded corners included) is anti-aliased from the exact distance to
/// the card's edge. Motion blur is the average of several poses across the
/// exposure; glare, defocus, brightness and noise follow.
///
/// One renderer per thread; the buffers are reused frame after frame.
public final class CardRenderer {
  public let camera: PinholeCamera
  public let texture: CardTexture
  public let background: ImageBuffer
  /// The last rendered frame (rgb8).
  public let frame: ImageBuffer
  private var accumulator: [Float]
  private var noiseState: UInt64

  public init(
    camera: PinholeCamera, texture: CardTexture = CardTexture(), background: ImageBuffer? = nil, seed: UInt64 = 1
  ) {
    self.camera = camera
    self.texture = texture
    self.background =
      background ?? SceneBackground.make(width: camera.width, height: camera.height, seed: seed)
    precondition(self.background.width == camera.width && self.background.height == camera.height)
    frame = ImageBuffer(width: camera.width, height: camera.height, format: .rgb8)
    accumulator = [Float](repeating: 0, count: camera.width * camera.height * 3)
    noiseState = seed &* 0x2545_F491_4F6C_DD1D | 1
  }

  /// Renders one frame: the average of `exposure` (the card's states
  /// across the exposure; one state for no motion blur), then the frame-wide
  /// effects of `exposure[exposure.count / 2]`, then ± `noise` levels of noise.
  @discardableResult
  public func render(_ exposure: [CardSceneState], noise: Double = 0, noiseSeed: UInt64 = 0) -> ImageBuffer {
    let width = camera.width
    let height = camera.height
    frame.pixels.update(from: background.pixels, count: width * height * 3)
    var box: (x0: Int, y0: Int, x1: Int, y1: Int)?
    for state in exposure where state.visible {
      guard let drawn = cardBox(state) else { continue }
      box =
        box.map { (min($0.x0, drawn.x0), min($0.y0, drawn.y0), max($0.x1, drawn.x1), max($0.y1, drawn.y1)) } ?? drawn
    }
    if let box {
      accumulator.withUnsafeMutableBufferPointer { sum in
        for y in box.y0...box.y1 {
          (sum.baseAddress! + (y * width + box.x0) * 3).update(repeating: 0, count: (box.x1 - box.x0 + 1) * 3)
        }
      }
    }
    let weight = Float(1) / Float(max(1, exposure.count))
    for state in exposure where state.visible { drawCard(state, weight: weight) }
    if let box {
      accumulator.withUnsafeBufferPointer { sum in
        for y in box.y0...box.y1 {
          for x in box.x0...box.x1 {
            let offset = (y * width + x) * 3
            for channel in 0..<3 {
              let value = Float(frame.pixels[offset + channel]) + sum[offset + channel]
              frame.pixels[offset + channel] = UInt8(max(0, min(255, value.rounded())))
            }
          }
        }
      }
    }
    let middle = exposure.isEmpty ? nil : exposure[exposure.count / 2]
    if let middle, middle.defocus >= 0.5 {
      ImageDegradation.blur(radius: Int(middle.defocus.rounded()), passes: 2).apply(to: frame)
    }
    if let middle, middle.brightness != 1 {
      let gain = middle.brightness
      let count = width * height * 3
      for index in 0..<count {
        frame.pixels[index] = UInt8(max(0, min(255, (Double(frame.pixels[index]) * gain).rounded())))
      }
    }
    if noise > 0 { addNoise(amplitude: noise, seed: noiseSeed) }
    return frame
  }

  /// The pixels a card state may touch, clipped to the frame; nil when
  /// none (outside the frame, or at or behind the camera's plane).
  private func cardBox(_ state: CardSceneState) -> (x0: Int, y0: Int, x1: Int, y1: Int)? {
    let outline = CardFormat.corners.map { state.pose.cameraPoint($0) }
    guard outline.allSatisfy({ $0.z > 1 }) else { return nil }
    let corners = outline.map { camera.project($0) }
    let x0 = max(0, Int(floor(corners.map(\.x).min()! - 2)))
    let x1 = min(camera.width - 1, Int(ceil(corners.map(\.x).max()! + 2)))
    let y0 = max(0, Int(floor(corners.map(\.y).min()! - 2)))
    let y1 = min(camera.height - 1, Int(ceil(corners.map(\.y).max()! + 2)))
    guard x0 <= x1, y0 <= y1 else { return nil }
    return (x0, y0, x1, y1)
  }

  /// Adds the card's difference from the background, times its coverage
  /// and `weight`, to the accumulator (cleared over the frame's card boxes).
  private func drawCard(_ state: CardSceneState, weight: Float) {
    guard let (x0, y0, x1, y1) = cardBox(state) else { return }
    let pose = state.pose
    let width = camera.width
    guard let inverse = pose.homography(camera: camera).inverse else { return }
    let g = inverse.matrix.m
    let halfWidth = CardFormat.width / 2
    let halfHeight = CardFormat.height / 2
    let radius = CardFormat.cornerRadius
    // The texture level for the scale at the card's centre.
    let center = camera.project(pose.translation)
    let millimetresPerPixel = localScale(g, center.x, center.y)
    let level = texture.level(millimetresPerPixel: millimetresPerPixel)
    let image = texture.levels[level]
    let texelsPerMillimetre = Double(image.width) / CardFormat.width
    let texelsPerMillimetreY = Double(image.height) / CardFormat.height
    let textureWidth = image.width
    let textureHeight = image.height
    let texels = image.pixels
    // The highlight, in millimetres from the card centre.
    let glarePeak = 1.5 * 255 * state.glare
    let glareX = (state.glareX - 0.5) * CardFormat.width
    let glareY = (state.glareY - 0.5) * CardFormat.height
    let glareSigma = max(0.1, state.glareRadius * CardFormat.width)
    let glareFactor = -1 / (2 * glareSigma * glareSigma)
    let background = self.background.pixels
    accumulator.withUnsafeMutableBufferPointer { sum in
      for y in y0...y1 {
        let py = Double(y)
        for x in x0...x1 {
          let px = Double(x)
          let w = g[6] * px + g[7] * py + g[8]
          guard w > 0 else { continue }
          let cardX = (g[0] * px + g[1] * py + g[2]) / w
          let cardY = (g[3] * px + g[4] * py + g[5]) / w
          // Signed distance to the rounded rectangle, millimetres (< 0 inside).
          let qx = abs(cardX) - (halfWidth - radius)
          let qy = abs(cardY) - (halfHeight - radius)
          let outsideX = max(qx, 0)
          let outsideY = max(qy, 0)
          let distance = (outsideX * outsideX + outsideY * outsideY).squareRoot() + min(max(qx, qy), 0) - radius
          var coverage = 1.0
          if distance > -3 * millimetresPerPixel {
            // The edge's normal in the card plane, then millimetres per pixel along it.
            var nx = 0.0
            var ny = 0.0
            if qx > 0 && qy > 0 {
              let length = max(1e-9, (qx * qx + qy * qy).squareRoot())
              nx = qx / length * (cardX < 0 ? -1 : 1)
              ny = qy / length * (cardY < 0 ? -1 : 1)
            } else if qx > qy {
              nx = cardX < 0 ? -1 : 1
            } else {
              ny = cardY < 0 ? -1 : 1
            }
            let dxdu = (g[0] - cardX * g[6]) / w
            let dxdv = (g[1] - cardX * g[7]) / w
            let dydu = (g[3] - cardY * g[6]) / w
            let dydv = (g[4] - cardY * g[7]) / w
            let alongU = nx * dxdu + ny * dydu
            let alongV = nx * dxdv + ny * dydv
            let scale = max(1e-9, (alongU * alongU + alongV * alongV).squareRoot())
            coverage = max(0, min(1, 0.5 - distance / scale))
            if coverage <= 0 { continue }
          }
          // Bilinear texture sample.
          let tx = max(0, min(Double(textureWidth - 1), (cardX + halfWidth) * texelsPerMillimetre - 0.5))
          let ty = max(0, min(Double(textureHeight - 1), (cardY + halfHeight) * texelsPerMillimetreY - 0.5))
          let ix = min(textureWidth - 2, Int(tx))
          let iy = min(textureHeight - 2, Int(ty))
          let fx = tx - Double(ix)
          let fy = ty - Double(iy)
          let t00 = (iy * textureWidth + ix) * 3
          let t10 = t00 + 3
          let t01 = t00 + textureWidth * 3
          let t11 = t01 + 3
          var light = 0.0
          if glarePeak > 0 {
            let gx = cardX - glareX
            let gy = cardY - glareY
            light = glarePeak * exp((gx * gx + gy * gy) * glareFactor)
          }
          let offset = (y * width + x) * 3
          for channel in 0..<3 {
            let top = Double(texels[t00 + channel]) * (1 - fx) + Double(texels[t10 + channel]) * fx
            let bottom = Double(texels[t01 + channel]) * (1 - fx) + Double(texels[t11 + channel]) * fx
            let card = min(255, top * (1 - fy) + bottom * fy + light)
            let difference = (card - Double(background[offset + channel])) * coverage
            sum[offset + channel] += Float(difference) * weight
          }
        }
      }
    }
  }

  /// Millimetres of card per pixel at (u, v): the square root of the
  /// Jacobian determinant of the inverse homography.
  private func localScale(_ g: [Double], _ u: Double, _ v: Double) -> Double {
    let w = g[6] * u + g[7] * v + g[8]
    let x = (g[0] * u + g[1] * v + g[2]) / w
    let y = (g[3] * u + g[4] * v + g[5]) / w
    let a = (g[0] - x * g[6]) / w
    let b = (g[1] - x * g[7]) / w
    let c = (g[3] - y * g[6]) / w
    let d = (g[4] - y * g[7]) / w
    return abs(a * d - b * c).squareRoot()
  }

  private func addNoise(amplitude: Double, seed: UInt64) {
    var state = noiseState ^ (seed &* 0x9E37_79B9_7F4A_7C15) | 1
    let span = UInt64(2 * Int(amplitude.rounded()) + 1)
    let shift = Int(amplitude.rounded())
    guard span > 1 else { return }
    let count = frame.width * frame.height * 3
    let pixels = frame.pixels
    for index in 0..<count {
      state ^= state << 13
      state ^= state >> 7
      state ^= state << 17
      let offset = Int(state % span) - shift
      pixels[index] = UInt8(max(0, min(255, Int(pixels[index]) + offset)))
    }
  }
}
