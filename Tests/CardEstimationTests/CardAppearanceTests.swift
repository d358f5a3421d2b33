import CardEstimation
import CardGeometry
import CardScenes
import Imaging
import Testing

/// The card's face carries a followed card through frames where its borders
/// cannot be found, and only while the face is there.
@Suite struct CardAppearanceTests {
  /// The frame with everything around the card replaced by the card's own
  /// border colours drawn outwards: no step anywhere along its borders, its
  /// face untouched.
  static func withoutBorders(_ rgb: ImageBuffer, truth: CardTruth) throws -> ImageBuffer {
    let inset = 1.5
    let halfWidth = CardFormat.width / 2 - inset
    let halfHeight = CardFormat.height / 2 - inset
    return try repainted(rgb, truth: truth) { card in
      Point2(max(-halfWidth, min(halfWidth, card.x)), max(-halfHeight, min(halfHeight, card.y)))
    }
  }

  static let keyframes = [
    CardKeyframe(t: 0, tiltY: 10, distance: .widthRatio(0.45)),
    CardKeyframe(t: 1, tiltY: 25, roll: 4, distance: .widthRatio(0.45), offsetX: 0.05),
  ]

  func process(_ estimator: CardEstimator, _ rgb: ImageBuffer, t: Double) throws -> CardObservation? {
    let gray = ImageBuffer(format: .gray8)
    try ImageConversion.rgb8ToGray8(rgb, into: gray)
    return estimator.process(gray: gray, color: rgb, t: t)
  }

  /// Each corner found within `tolerance` pixels of one of the truth's
  /// (the printed order is another test's concern).
  func matches(_ observation: CardObservation, _ truth: CardTruth, tolerance: Double) -> Bool {
    truth.corners.allSatisfy { corner in observation.corners.contains { $0.distance(to: corner) < tolerance } }
  }

  @Test(arguments: [false, true])
  func followsTheFaceWhenTheBordersVanish(mirror: Bool) throws {
    let bench = Bench(Self.keyframes, fps: 10, seed: 21, mirror: mirror)
    for index in 0..<3 {
      let (found, truth) = bench.run(frame: index)
      let observation = try #require(found, "frame \(index)")
      #expect(matches(observation, truth, tolerance: 2), "frame \(index)")
    }
    let truth = bench.scene.truth(frame: 3)
    let hidden = try Self.withoutBorders(bench.scene.render(frame: 3), truth: truth)
    // Searched afresh, the frame shows no card.
    let fresh = CardEstimator(settings: bench.estimator.settings)
    let unseen = try process(fresh, hidden, t: bench.scene.time(ofFrame: 3))
    #expect(unseen.map { !matches($0, truth, tolerance: 8) } ?? true)
    // Followed on its borders alone, it is lost.
    var settings = bench.estimator.settings
    settings.followsFace = false
    let edgesOnly = CardEstimator(settings: settings)
    for index in 0..<3 {
      _ = try process(edgesOnly, bench.scene.render(frame: index), t: bench.scene.time(ofFrame: index))
    }
    let lost = try process(edgesOnly, hidden, t: bench.scene.time(ofFrame: 3))
    #expect(lost.map { !matches($0, truth, tolerance: 8) } ?? true)
    // Followed, the card's face still places it.
    let followed = try #require(try process(bench.estimator, hidden, t: bench.scene.time(ofFrame: 3)))
    #expect(followed.tracked)
    #expect(matches(followed, truth, tolerance: 3))
    // And its borders take over again when they are back.
    let (next, nextTruth) = bench.run(frame: 4)
    let back = try #require(next)
    #expect(matches(back, nextTruth, tolerance: 2))
  }

  @Test func doesNotFollowAFaceThatIsGone() throws {
    // The scene whose card the face follows when its borders vanish (above).
    let bench = Bench(Self.keyframes, fps: 10, seed: 21)
    for index in 0..<3 { _ = try #require(bench.run(frame: index).0, "frame \(index)") }
    // The same table with the card taken away.
    let empty = Bench(still(CardKeyframe(t: 0, distance: .widthRatio(0.45), offsetX: 3)), fps: 10, seed: 21)
    #expect(!empty.scene.truth(frame: 3).inFrame)
    let frame = empty.scene.render(frame: 3)
    #expect(try process(bench.estimator, frame, t: bench.scene.time(ofFrame: 3)) == nil)
  }
}
