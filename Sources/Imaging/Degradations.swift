/// Known degradations applied to real images: they validate the quality
/// estimators today and will drive QA's fault injection (glare bursts,
/// darkening, blur, noise). All work in place on gray8 or rgb8 buffers.
public enum ImageDegradation: Sendable, Equatable, CustomStringConvertible {
  /// A box blur applied `passes` times (three passes approximate a
  /// Gaussian of sigma ≈ radius).
  case blur(radius: Int, passes: Int = 3)
  /// Every value multiplied by `factor` (< 1 darkens).
  case darken(factor: Double)
  /// Every value multiplied by `gain` and clipped at 255.
  case overExpose(gain: Double)
  /// A saturated disc whose area is `share` of the image, centred at
  /// (`x`, `y`) given as fractions of the width and height, with a soft edge.
  case glare(share: Double, x: Double = 0.5, y: Double = 0.4)
  /// Light falling off from left to right down to `darkest` at the edge.
  case unevenLight(darkest: Double)
  /// Uniform noise of ± `amplitude`, from a fixed seed (repeatable).
  case noise(amplitude: Int, seed: UInt64 = 1)

  public var description: String {
    switch self {
    case .blur(let radius, let passes): return "blur r\(radius)×\(passes)"
    case .darken(let factor): return "darken ×\(factor)"
    case .overExpose(let gain): return "over-expose ×\(gain)"
    case .glare(let share, _, _): return "glare \(Int(share * 100))%"
    case .unevenLight(let darkest): return "uneven light →\(darkest)"
    case .noise(let amplitude, _): return "noise ±\(amplitude)"
    }
  }

  public func apply(to image: ImageBuffer) {
    let channels = image.format.bytesPerPixel
    guard image.format != .yuv420p, image.width > 0, image.height > 0 else { return }
    switch self {
    case .blur(let radius, let passes):
      for _ in 0..<max(1, passes) { ImageDegradation.boxBlur(image, radius: max(1, radius), channels: channels) }
    case .darken(let factor):
      ImageDegradation.map(image) { UInt8(min(255, max(0, (Double($0) * factor).rounded()))) }
    case .overExpose(let gain):
      ImageDegradation.map(image) { UInt8(min(255, (Double($0) * gain).rounded())) }
    case .glare(let share, let cx, let cy):
      let radius = (share * Double(image.width * image.height) / Double.pi).squareRoot()
      let centerX = cx * Double(image.width)
      let centerY = cy * Double(image.height)
      for y in 0..<image.height {
        for x in 0..<image.width {
          let distance = ((Double(x) - centerX) * (Double(x) - centerX) + (Double(y) - centerY) * (Double(y) - centerY))
            .squareRoot()
          // Saturated inside the disc, fading to the original over 20% of the radius.
          let weight = distance <= radius ? 1 : max(0, 1 - (distance - radius) / (0.2 * radius))
          guard weight > 0 else { continue }
          let offset = (y * image.width + x) * channels
          for channel in 0..<channels {
            let value = Double(image.pixels[offset + channel])
            image.pixels[offset + channel] = UInt8((value + (255 - value) * weight).rounded())
          }
        }
      }
    case .unevenLight(let darkest):
      for y in 0..<image.height {
        for x in 0..<image.width {
          let factor = 1 - (1 - darkest) * Double(x) / Double(max(1, image.width - 1))
          let offset = (y * image.width + x) * channels
          for channel in 0..<channels {
            image.pixels[offset + channel] = UInt8((Double(image.pixels[offset + channel]) * factor).rounded())
          }
        }
      }
    case .noise(let amplitude, let seed):
      var state = seed
      ImageDegradation.map(image) { value in
        // xorshift64: the same noise for the same seed, everywhere.
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        let offset = Int(state % UInt64(2 * amplitude + 1)) - amplitude
        return UInt8(min(255, max(0, Int(value) + offset)))
      }
    }
  }

  static func map(_ image: ImageBuffer, _ transform: (UInt8) -> UInt8) {
    let count = image.byteCount
    for index in 0..<count { image.pixels[index] = transform(image.pixels[index]) }
  }

  /// Separable box blur with edge clamping, one pass.
  static func boxBlur(_ image: ImageBuffer, radius: Int, channels: Int) {
    let width = image.width
    let height = image.height
    let window = 2 * radius + 1
    var line = [Int](repeating: 0, count: max(width, height))
    for channel in 0..<channels {
      for y in 0..<height {
        for x in 0..<width { line[x] = Int(image.pixels[(y * width + x) * channels + channel]) }
        var sum = 0
        for k in -radius...radius { sum += line[min(width - 1, max(0, k))] }
        for x in 0..<width {
          image.pixels[(y * width + x) * channels + channel] = UInt8(sum / window)
          sum += line[min(width - 1, x + radius + 1)] - line[max(0, x - radius)]
        }
      }
      for x in 0..<width {
        for y in 0..<height { line[y] = Int(image.pixels[(y * width + x) * channels + channel]) }
        var sum = 0
        for k in -radius...radius { sum += line[min(height - 1, max(0, k))] }
        for y in 0..<height {
          image.pixels[(y * width + x) * channels + channel] = UInt8(sum / window)
          sum += line[min(height - 1, y + radius + 1)] - line[max(0, y - radius)]
        }
      }
    }
  }
}
