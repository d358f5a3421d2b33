import CardGeometry
import Diagnostics
import Foundation
import Imaging
import Randomness

/// What is printed on the card, as RGB images at several resolutions (each
/// half the previous), so that a small card is sampled from a level whose
/// texels are about the size of a pixel instead of aliasing.
public final class CardTexture {
  /// Level 0 first.
  public let levels: [ImageBuffer]
  public let layout: CardLayout

  /// Texels per millimetre of level 0.
  public var texelsPerMillimetre: Double { Double(levels[0].width) / CardFormat.width }

  /// The built-in design: a light card with a guilloche-like pattern, a
  /// coloured header band, lines of "text" and a portrait with a drawn face,
  /// placed by `layout`. The same on every call.
  public convenience init(layout: CardLayout = .hongKongIdentityCard, texelsPerMillimetre: Double = 8) {
    let width = Int((CardFormat.width * texelsPerMillimetre).rounded())
    let height = Int((CardFormat.height * texelsPerMillimetre).rounded())
    let image = ImageBuffer(width: width, height: height, format: .rgb8)
    CardTexture.drawDesign(into: image, layout: layout)
    self.init(base: image, layout: layout)
  }

  /// The built-in design with a photo (rgb8) as its portrait: scaled to
  /// cover the portrait's area and cropped about its centre, as a card's
  /// photo is printed. For cards whose portrait is a given person.
  public convenience init(
    portrait photo: ImageBuffer, layout: CardLayout = .hongKongIdentityCard, texelsPerMillimetre: Double = 8
  ) throws(ImagingError) {
    let width = Int((CardFormat.width * texelsPerMillimetre).rounded())
    let height = Int((CardFormat.height * texelsPerMillimetre).rounded())
    let image = ImageBuffer(width: width, height: height, format: .rgb8)
    CardTexture.drawDesign(into: image, layout: layout)
    let area = (
      x: Int((layout.portrait.x * Double(width)).rounded()), y: Int((layout.portrait.y * Double(height)).rounded()),
      width: Int((layout.portrait.width * Double(width)).rounded()),
      height: Int((layout.portrait.height * Double(height)).rounded())
    )
    let rgb = ImageBuffer(format: .rgb8)
    try ImageConversion.convert(photo, to: .rgb8, into: rgb)
    let scale = max(Double(area.width) / Double(rgb.width), Double(area.height) / Double(rgb.height))
    let scaled = ImageBuffer(format: .rgb8)
    try ImageConversion.resize(
      rgb, width: max(area.width, Int((Double(rgb.width) * scale).rounded(.up))),
      height: max(area.height, Int((Double(rgb.height) * scale).rounded(.up))), into: scaled)
    let left = (scaled.width - area.width) / 2
    let top = (scaled.height - area.height) / 2
    for row in 0..<area.height {
      let from = scaled.pixels + ((top + row) * scaled.width + left) * 3
      let to = image.pixels + ((area.y + row) * width + area.x) * 3
      to.update(from: from, count: area.width * 3)
    }
    self.init(base: image, layout: layout)
  }

  /// A user's picture of a card front (gray8 or rgb8), stretched to the card.
  public convenience init(image: ImageBuffer, layout: CardLayout = .hongKongIdentityCard) throws(ImagingError) {
    let rgb = ImageBuffer(format: .rgb8)
    if image.format == .rgb8 {
      try ImageConversion.resize(image, width: 685, height: 432, into: rgb)
    } else {
      let converted = ImageBuffer(format: .rgb8)
      try ImageConversion.convert(image, to: .rgb8, into: converted)
      try ImageConversion.resize(converted, width: 685, height: 432, into: rgb)
    }
    self.init(base: rgb, layout: layout)
  }

  private init(base: ImageBuffer, layout: CardLayout) {
    var levels = [base]
    while levels.count < 6, levels[levels.count - 1].width >= 32 {
      let previous = levels[levels.count - 1]
      let next = ImageBuffer(format: .rgb8)
      try? ImageConversion.resize(
        previous, width: (previous.width + 1) / 2, height: (previous.height + 1) / 2, into: next)
      levels.append(next)
    }
    self.levels = levels
    self.layout = layout
  }

  /// The level to sample when one pixel covers `millimetres` of the card.
  func level(millimetresPerPixel millimetres: Double) -> Int {
    let texelsPerPixel = millimetres * texelsPerMillimetre
    guard texelsPerPixel > 1.4 else { return 0 }
    return min(levels.count - 1, Int(log2(texelsPerPixel / 1.4).rounded(.up)))
  }

  static func drawDesign(into image: ImageBuffer, layout: CardLayout) {
    let width = image.width
    let height = image.height
    var random = SeededRandom(seed: 20_180_101)
    // Lines of text: (row centre, height, [(start, end)]) in card units.
    var bars: [(v: Double, h: Double, spans: [(Double, Double)])] = []
    var v = layout.text.y + 0.03
    while v < layout.text.maxY - 0.03 {
      var spans: [(Double, Double)] = []
      var u = layout.text.x
      let end = layout.text.x + layout.text.width * random.uniform(0.45, 1)
      while u < end {
        let word = random.uniform(0.03, 0.09)
        spans.append((u, min(end, u + word)))
        u += word + 0.012
      }
      bars.append((v, random.uniform(0.028, 0.045), spans))
      v += random.uniform(0.085, 0.12)
    }
    let titleSpans: [(Double, Double)] = [(0.06, 0.30), (0.33, 0.52), (0.62, 0.94)]
    for y in 0..<height {
      let v = (Double(y) + 0.5) / Double(height)
      for x in 0..<width {
        let u = (Double(x) + 0.5) / Double(width)
        // Card stock with a fine wavy pattern.
        let wave = sin(u * 90 + 3 * sin(v * 14)) * sin(v * 70 + 2 * sin(u * 9))
        var color = (222 + 6 * wave, 226 + 5 * wave, 229 + 3 * wave)
        if layout.header.contains(u, v) {
          let shade = 8 * sin(u * 12)
          color = (96 + shade, 84 + shade, 158 + shade)
          let titleRow = abs(v - layout.header.y - layout.header.height * 0.5) < layout.header.height * 0.16
          if titleRow, titleSpans.contains(where: { u >= $0.0 && u < $0.1 }) { color = (236, 232, 246) }
        }
        for bar in bars where abs(v - bar.v) < bar.h / 2 {
          if bar.spans.contains(where: { u >= $0.0 && u < $0.1 }) { color = (38, 40, 52) }
        }
        if layout.portrait.contains(u, v) {
          color = portraitColor(
            (u - layout.portrait.x) / layout.portrait.width, (v - layout.portrait.y) / layout.portrait.height)
        }
        let offset = (y * width + x) * 3
        image.pixels[offset] = UInt8(max(0, min(255, color.0.rounded())))
        image.pixels[offset + 1] = UInt8(max(0, min(255, color.1.rounded())))
        image.pixels[offset + 2] = UInt8(max(0, min(255, color.2.rounded())))
      }
    }
  }

  /// A simple face on a pale backdrop; (u, v) in the portrait's own unit square.
  static func portraitColor(_ u: Double, _ v: Double) -> (Double, Double, Double) {
    func inEllipse(_ cx: Double, _ cy: Double, _ rx: Double, _ ry: Double) -> Bool {
      let dx = (u - cx) / rx
      let dy = (v - cy) / ry
      return dx * dx + dy * dy <= 1
    }
    // Shoulders, then hair, then the face and its features.
    if inEllipse(0.5, 1.05, 0.52, 0.3) { return (52, 62, 86) }
    if inEllipse(0.5, 0.4, 0.3, 0.3) && !inEllipse(0.5, 0.47, 0.25, 0.28) { return (54, 40, 32) }
    if inEllipse(0.5, 0.47, 0.25, 0.28) || (abs(u - 0.5) < 0.1 && v > 0.6 && v < 0.82) {
      if inEllipse(0.4, 0.42, 0.04, 0.025) || inEllipse(0.6, 0.42, 0.04, 0.025) { return (30, 26, 24) }
      if inEllipse(0.5, 0.6, 0.08, 0.018) { return (150, 70, 70) }
      if abs(u - 0.5) < 0.015 && v > 0.44 && v < 0.54 { return (190, 150, 125) }
      return (226, 188, 160)
    }
    return (196, 208, 222)
  }
}

extension CardTexture {
  /// The built-in design with the JPEG photo at `path` as its portrait.
  public static func load(portrait path: String, layout: CardLayout = .hongKongIdentityCard) throws(WorkbenchError)
    -> CardTexture
  {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw WorkbenchError(.input, "cannot read the portrait image", at: SourceLocation(file: path))
    }
    let image = ImageBuffer(format: .rgb8)
    do {
      try JPEGDecoder().decode([UInt8](data), into: image, format: .rgb8)
      return try CardTexture(portrait: image, layout: layout)
    } catch {
      throw WorkbenchError(
        .input, "not a usable JPEG image: \(error.message)", at: SourceLocation(file: path),
        help: "give a JPEG photo of a face, about 3:4 (it is cropped about its centre)")
    }
  }

  /// A card front from a JPEG file.
  public static func load(path: String, layout: CardLayout = .hongKongIdentityCard) throws(WorkbenchError)
    -> CardTexture
  {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw WorkbenchError(.input, "cannot read the texture image", at: SourceLocation(file: path))
    }
    let image = ImageBuffer(format: .rgb8)
    do {
      try JPEGDecoder().decode([UInt8](data), into: image, format: .rgb8)
      return try CardTexture(image: image, layout: layout)
    } catch {
      throw WorkbenchError(
        .input, "not a usable JPEG image: \(error.message)", at: SourceLocation(file: path),
        help: "give a JPEG photo or scan of a card front")
    }
  }
}
