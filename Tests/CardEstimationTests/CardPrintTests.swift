import CardEstimation
import CardGeometry
import CardScenes
import Imaging
import Testing

/// A card carries print: a plain shape with a card's outline (a blank
/// sheet, a box lid on a cluttered table) is not taken for one.
@Suite struct CardPrintTests {
  func search(_ scene: CardScene) throws -> CardObservation? {
    let rgb = scene.render(frame: 0)
    let gray = ImageBuffer(format: .gray8)
    try ImageConversion.rgb8ToGray8(rgb, into: gray)
    return CardEstimator(settings: CardEstimatorSettings(focalLength: scene.camera.focal))
      .process(gray: gray, color: rgb, t: 0)
  }

  @Test(arguments: [UInt64(3), 8, 21])
  func aBlankCardShapeIsNoCard(seed: UInt64) throws {
    let schedule = CardSchedule(keyframes: [CardKeyframe(t: 0, tiltX: 10, tiltY: -12, distance: .widthRatio(0.4))])
    let options = CardSceneOptions(width: 1280, height: 720, seed: seed)
    // The printed card is found in this scene.
    let printed = CardScene(schedule: schedule, options: options)
    let found = try #require(try search(printed))
    let truth = printed.truth(frame: 0)
    #expect(truth.corners.allSatisfy { corner in found.corners.contains { $0.distance(to: corner) < 3 } })
    // The same shape in the same place, plain, is not.
    let plain = ImageBuffer(width: 685, height: 432, format: .rgb8)
    plain.pixels.update(repeating: 214, count: 685 * 432 * 3)
    let blank = CardScene(schedule: schedule, options: options, texture: try CardTexture(image: plain))
    #expect(try search(blank) == nil)
  }
}
