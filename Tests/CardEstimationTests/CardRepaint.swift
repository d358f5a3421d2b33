import CardGeometry
import CardScenes
import Imaging
import Testing

/// `rgb` with pixels repainted from the card: each pixel whose point on the
/// card's plane (millimetres from the card's centre) `move` sends elsewhere
/// takes the colour of the pixel there, `darker` levels darker; the others
/// keep theirs. Drawing the card's own colours outwards hides its borders.
func repainted(
  _ rgb: ImageBuffer, truth: CardTruth, darker: Int = 0, _ move: (Point2) -> Point2?
) throws -> ImageBuffer {
  let toImage = try #require(Homography(from: CardFormat.corners, to: truth.corners))
  let toCard = try #require(toImage.inverse)
  let result = ImageBuffer(width: rgb.width, height: rgb.height, format: .rgb8)
  result.pixels.update(from: rgb.pixels, count: rgb.width * rgb.height * 3)
  for y in 0..<rgb.height {
    for x in 0..<rgb.width {
      guard let moved = move(toCard.apply(Point2(Double(x), Double(y)))) else { continue }
      let source = toImage.apply(moved)
      let sx = max(0, min(rgb.width - 1, Int(source.x.rounded())))
      let sy = max(0, min(rgb.height - 1, Int(source.y.rounded())))
      for c in 0..<3 {
        let value = Int(rgb.pixels[(sy * rgb.width + sx) * 3 + c]) - darker
        result.pixels[(y * rgb.width + x) * 3 + c] = UInt8(max(0, min(255, value)))
      }
    }
  }
  return result
}
