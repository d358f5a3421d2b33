import CardEstimation
import CardGeometry
import CardScenes
import Imaging
import Testing

/// A card lying on a sheet of its own colour shows one side as no more than
/// a faint step: the card is found where that step lines up exactly where
/// the other three sides put it, and not where there is no step at all.
@Suite struct CardFaintSideTests {
  /// The frame with everything beyond the card's lower long side (in the
  /// card's own coordinates) replaced by the card's colour just inside that
  /// side, `step` levels darker: a sheet of nearly the card's colour.
  static func onPaleSheet(_ rgb: ImageBuffer, truth: CardTruth, step: Int) throws -> ImageBuffer {
    let inset = 1.5
    let halfWidth = CardFormat.width / 2 - inset
    let halfHeight = CardFormat.height / 2 - inset
    return try repainted(rgb, truth: truth, darker: step) { card in
      card.y > CardFormat.height / 2 - 0.15 ? Point2(max(-halfWidth, min(halfWidth, card.x)), halfHeight) : nil
    }
  }

  func search(_ rgb: ImageBuffer, focal: Double) throws -> CardObservation? {
    let gray = ImageBuffer(format: .gray8)
    try ImageConversion.rgb8ToGray8(rgb, into: gray)
    return CardEstimator(settings: CardEstimatorSettings(focalLength: focal)).process(gray: gray, color: rgb, t: 0)
  }

  func matches(_ observation: CardObservation?, _ truth: CardTruth, tolerance: Double) -> Bool {
    guard let observation else { return false }
    return truth.corners.allSatisfy { corner in observation.corners.contains { $0.distance(to: corner) < tolerance } }
  }

  @Test(arguments: [UInt64(21), 33])
  func aFaintSideOnAPaleSheetIsTheCardsEnd(seed: UInt64) throws {
    let bench = Bench(
      [CardKeyframe(t: 0, tiltX: 8, tiltY: 15, roll: 3, distance: .widthRatio(0.5))], width: 1280, height: 720,
      seed: seed, noise: 0)
    let truth = bench.scene.truth(frame: 0)
    let rgb = bench.scene.render(frame: 0)
    // As rendered, the card is found on four sides.
    #expect(matches(try search(rgb, focal: bench.scene.camera.focal), truth, tolerance: 3))
    // On a sheet of exactly its colour, one side is gone: three sides
    // alone do not make a card.
    let gone = try Self.onPaleSheet(rgb, truth: truth, step: 0)
    #expect(!matches(try search(gone, focal: bench.scene.camera.focal), truth, tolerance: 8))
    // Five levels darker (far below a clear edge), the step lines up
    // where the card's proportions put the side: the card is found.
    let faint = try Self.onPaleSheet(rgb, truth: truth, step: 5)
    #expect(matches(try search(faint, focal: bench.scene.camera.focal), truth, tolerance: 3))
  }
}
