import CardEstimation
import CardGeometry
import CardScenes
import Estimators
import Imaging
import Measurements
import Testing

/// A card filmed by a camera whose field of view is not the 60° assumed:
/// the focal length is estimated from the card, and FAR/NEAR's size does
/// not change with the tilt.
@Suite struct CardFocalLengthTests {
  /// Front-on, then flipped right to 45° and held.
  static let flip = [
    CardKeyframe(t: 0, distance: .widthRatio(0.45)), CardKeyframe(t: 0.3, distance: .widthRatio(0.45)),
    CardKeyframe(t: 1.3, tiltY: 45, distance: .widthRatio(0.45)),
    CardKeyframe(t: 1.8, tiltY: 45, distance: .widthRatio(0.45)),
  ]

  /// The estimator's observations along the flip, filmed with `fieldOfView`.
  func observe(fieldOfView: Double, settings: CardEstimatorSettings) throws -> (
    [(CardObservation?, CardTruth)], CardEstimator, PinholeCamera
  ) {
    let focal = PinholeCamera.focal(width: 640, horizontalFieldOfView: fieldOfView)
    let scene = CardScene(
      schedule: CardSchedule(keyframes: Self.flip),
      options: CardSceneOptions(width: 640, height: 360, fps: 15, focal: focal, seed: 4))
    let estimator = CardEstimator(settings: settings)
    let gray = ImageBuffer(format: .gray8)
    var seen: [(CardObservation?, CardTruth)] = []
    for index in 0..<scene.frameCount {
      let rgb = scene.render(frame: index)
      try ImageConversion.rgb8ToGray8(rgb, into: gray)
      seen.append((estimator.process(gray: gray, color: rgb, t: scene.time(ofFrame: index)), scene.truth(frame: index)))
    }
    return (seen, estimator, scene.camera)
  }

  /// The largest tilt error over the frames held at 45°.
  func peakError(_ seen: [(CardObservation?, CardTruth)]) throws -> Double {
    var worst = 0.0
    for (observation, truth) in seen where truth.pose.tiltY >= 44.9 {
      let observation = try #require(observation, "card lost at \(truth.t) s")
      worst = max(worst, abs(observation.pose.tiltY - truth.pose.tiltY))
    }
    return worst
  }

  @Test(arguments: [45.0, 75.0])
  func theFocalLengthIsEstimatedFromTheCardAndTheTiltIsRight(fieldOfView: Double) throws {
    let (seen, estimator, camera) = try observe(fieldOfView: fieldOfView, settings: CardEstimatorSettings())
    let estimated = try #require(estimator.estimatedFocalLength)
    #expect(abs(estimated - camera.focal) / camera.focal < 0.03, "\(estimated) for \(camera.focal)")
    #expect(try peakError(seen) < 1.5)
    #expect(seen.last?.0?.focalSource == .card)

    // The baseline: 60° assumed reads the same flip several degrees off.
    let (assumed, _, _) = try observe(
      fieldOfView: fieldOfView, settings: CardEstimatorSettings(calibratesFocalLength: false))
    #expect(try peakError(assumed) > 4)
    #expect(assumed.last?.0?.focalSource == .assumed)
  }

  @Test func aFocalLengthGivenIsUsedAsIs() throws {
    let focal = PinholeCamera.focal(width: 640, horizontalFieldOfView: 45)
    let (seen, estimator, _) = try observe(fieldOfView: 45, settings: CardEstimatorSettings(focalLength: focal))
    #expect(estimator.estimatedFocalLength == nil)
    #expect(seen.last?.0?.focalLength == focal)
    #expect(seen.last?.0?.focalSource == .setting)
    #expect(try peakError(seen) < 1)
    let (byFieldOfView, _, _) = try observe(
      fieldOfView: 45, settings: CardEstimatorSettings(horizontalFieldOfView: 45))
    #expect(byFieldOfView.last?.0.map { abs($0.focalLength - focal) < 1e-6 } == true)
  }

  @Test func theSizeRatioDoesNotChangeWithTheTiltWhereTheWidthRatioDoes() throws {
    let (seen, _, _) = try observe(fieldOfView: 60, settings: CardEstimatorSettings())
    let front = try #require(seen.first?.0)
    let flipped = try #require(seen.last?.0)
    #expect(abs(front.sizeRatio - 0.45) < 0.01, "\(front.sizeRatio)")
    #expect(abs(flipped.sizeRatio - 0.45) < 0.01, "\(flipped.sizeRatio)")
    // The projected width shrinks about as cos 45°.
    #expect(flipped.widthRatio < 0.36, "\(flipped.widthRatio)")
  }

  @Test func theFramesSourceGivesTheFocalLength() throws {
    let schema = MeasurementSchema()
    let estimator = CardEstimator()
    try estimator.prepare(schema: schema)
    let focal = PinholeCamera.focal(width: 640, horizontalFieldOfView: 45)
    let scene = CardScene(
      schedule: CardSchedule(keyframes: [CardKeyframe(t: 0, tiltY: 40, distance: .widthRatio(0.45))]),
      options: CardSceneOptions(width: 640, height: 360, focal: focal))
    let frame = DecodedFrame()
    try ImageConversion.rgb8ToGray8(scene.render(frame: 0), into: frame.gray)
    frame.focalLength = focal
    var measurements = MeasurementFrame(t: 0, index: 0)
    estimator.estimate(frame, into: &measurements)
    func number(_ path: String) -> Double? {
      if case .number(let value) = measurements[schema.lookup(path: path)!] { return value }
      return nil
    }
    #expect(abs((number("card.focal_length") ?? 0) - focal) < 0.1)
    #expect(abs((number("card.tilt_y") ?? 0) - 40) < 1)
    #expect(abs((number("card.size_ratio") ?? 0) - 0.45) < 0.01)
  }
}
