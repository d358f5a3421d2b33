import CardEstimation
import CardGeometry
import CardScenes
import Estimators
import Imaging
import Measurements
import Randomness
import Testing

/// Renders a schedule and runs the estimator on its frames (gray, as the
/// frame pipeline gives them).
final class Bench {
  let scene: CardScene
  let estimator: CardEstimator
  let gray = ImageBuffer(format: .gray8)
  let useColor: Bool

  init(
    _ keyframes: [CardKeyframe], width: Int = 640, height: Int = 360, fps: Double = 10, seed: UInt64 = 1,
    noise: Double = 2, shutter: Double = 0.5, interpolation: CardSchedule.Interpolation = .smoothstep,
    mirror: Bool = false, knownFocal: Bool = true, color: Bool = true
  ) {
    useColor = color
    let schedule = CardSchedule(keyframes: keyframes, interpolation: interpolation, noise: noise, shutter: shutter)
    scene = CardScene(schedule: schedule, options: CardSceneOptions(width: width, height: height, fps: fps, seed: seed))
    estimator = CardEstimator(
      settings: CardEstimatorSettings(focalLength: knownFocal ? scene.camera.focal : nil, mirror: mirror))
  }

  func run(frame index: Int) -> (CardObservation?, CardTruth) {
    let rgb = scene.render(frame: index)
    try! ImageConversion.rgb8ToGray8(rgb, into: gray)
    let observation = estimator.process(gray: gray, color: useColor ? rgb : nil, t: scene.time(ofFrame: index))
    return (observation, scene.truth(frame: index))
  }
}

func still(_ keyframe: CardKeyframe) -> [CardKeyframe] { [keyframe] }

@Suite struct CardEstimatorTests {
  struct PoseCase: Sendable, CustomTestStringConvertible {
    var name: String
    var keyframe: CardKeyframe
    var seed: UInt64
    var testDescription: String { name }
  }

  static let poses: [PoseCase] =
    [
      PoseCase(name: "front-on", keyframe: CardKeyframe(t: 0, distance: .widthRatio(0.45)), seed: 1),
      PoseCase(
        name: "flipped right 40°", keyframe: CardKeyframe(t: 0, tiltY: 40, distance: .widthRatio(0.45)), seed: 2),
      PoseCase(name: "flipped left 40°", keyframe: CardKeyframe(t: 0, tiltY: -40, distance: .widthRatio(0.4)), seed: 3),
      PoseCase(name: "flipped up 40°", keyframe: CardKeyframe(t: 0, tiltX: 40, distance: .widthRatio(0.45)), seed: 4),
      PoseCase(name: "flipped down 35°", keyframe: CardKeyframe(t: 0, tiltX: -35, distance: .widthRatio(0.5)), seed: 5),
      PoseCase(
        name: "tilted both ways and rolled",
        keyframe: CardKeyframe(t: 0, tiltX: 20, tiltY: -25, roll: 12, distance: .widthRatio(0.4), offsetX: 0.1),
        seed: 6),
      PoseCase(
        name: "small, off centre",
        keyframe: CardKeyframe(t: 0, tiltY: 15, distance: .widthRatio(0.25), offsetX: -0.2, offsetY: 0.15), seed: 7),
    ]
    + (12..<17).map { seed in
      PoseCase(
        name: "40° with partial glare, background \(seed)",
        keyframe: CardKeyframe(
          t: 0, tiltY: 40, distance: .widthRatio(0.45), glare: 0.9, glareX: 0.7, glareY: 0.4, glareRadius: 0.12),
        seed: UInt64(seed))
    }

  @Test(arguments: poses)
  func findsTheCardAndItsPose(_ pose: PoseCase) throws {
    let bench = Bench(still(pose.keyframe), seed: pose.seed)
    let (found, truth) = bench.run(frame: 0)
    let observation = try #require(found)
    for k in 0..<4 {
      #expect(observation.corners[k].distance(to: truth.corners[k]) < 2, "corner \(k + 1)")
    }
    #expect(abs(observation.pose.tiltX - truth.pose.tiltX) < 2)
    #expect(abs(observation.pose.tiltY - truth.pose.tiltY) < 2)
    #expect(abs(observation.pose.roll - truth.pose.roll) < 2)
    #expect(abs(observation.pose.distance - truth.pose.distance) / truth.pose.distance < 0.05)
    #expect(abs(observation.widthRatio - truth.widthRatio) < 0.01)
    #expect(observation.confidence > 0.5)
    #expect(bench.estimator.lastRectified.width == 428 && bench.estimator.lastRectified.height == 270)
  }

  @Test(arguments: [false, true])
  func findsTheCardInRandomScenes(color: Bool) {
    // Random poses over random backgrounds, fixed seeds: tilts up to 35° on
    // either axis, roll up to 10°, cards 30–60% of the frame width, no blur.
    var random = SeededRandom(seed: 77)
    var good = 0
    var missed: [Int] = []
    for index in 0..<40 {
      let keyframe = CardKeyframe(
        t: 0, tiltX: random.uniform(-35, 35), tiltY: random.uniform(-35, 35), roll: random.uniform(-10, 10),
        distance: .widthRatio(random.uniform(0.3, 0.6)), offsetX: random.uniform(-0.1, 0.1),
        offsetY: random.uniform(-0.1, 0.1))
      let bench = Bench(still(keyframe), seed: UInt64(200 + index), color: color)
      let (found, truth) = bench.run(frame: 0)
      if let found, abs(found.pose.tiltX - truth.pose.tiltX) < 2, abs(found.pose.tiltY - truth.pose.tiltY) < 2 {
        good += 1
      } else {
        missed.append(index)
      }
    }
    #expect(good >= (color ? 39 : 36), "missed \(missed)")
  }

  @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] as [UInt64])
  func findsNothingWithoutACard(seed: UInt64) {
    let bench = Bench(still(CardKeyframe(t: 0, visible: false)), seed: seed)
    let (found, _) = bench.run(frame: 0)
    #expect(found == nil)
    #expect(bench.estimator.lastObservation == nil)
  }

  @Test func flipRightIsPositiveAndMirrorFlipsIt() throws {
    let keyframes = still(CardKeyframe(t: 0, tiltY: 30, distance: .widthRatio(0.45)))
    let plain = try #require(Bench(keyframes).run(frame: 0).0)
    #expect(plain.pose.tiltY > 25)
    let mirrored = try #require(Bench(keyframes, mirror: true).run(frame: 0).0)
    #expect(mirrored.pose.tiltY < -25)
    #expect(abs(mirrored.pose.tiltX - plain.pose.tiltX) < 0.5)
    // The printed top-left corner is on the image's right in a mirror image.
    #expect(mirrored.corners[0].x > mirrored.corners[1].x)
    let up = try #require(Bench(still(CardKeyframe(t: 0, tiltX: 30, distance: .widthRatio(0.45)))).run(frame: 0).0)
    #expect(up.pose.tiltX > 25)
  }

  @Test func followsACardThroughAFlip() throws {
    let bench = Bench(
      [
        CardKeyframe(t: 0, distance: .widthRatio(0.45)), CardKeyframe(t: 1, tiltY: 35),
        CardKeyframe(t: 2, tiltY: -35, offsetX: 0.05), CardKeyframe(t: 2.5, tiltY: 0, offsetX: 0),
      ], fps: 12)
    var tracked = 0
    for index in 0..<bench.scene.frameCount {
      let (found, truth) = bench.run(frame: index)
      let observation = try #require(found, "frame \(index)")
      #expect(abs(observation.pose.tiltY - truth.pose.tiltY) < 3, "frame \(index)")
      if observation.tracked { tracked += 1 }
    }
    #expect(tracked >= bench.scene.frameCount - 2)
  }

  @Test func speedFollowsAConstantRateFlip() throws {
    // 60°/s about the vertical axis.
    let bench = Bench(
      [CardKeyframe(t: 0, tiltY: -30, distance: .widthRatio(0.45)), CardKeyframe(t: 1, tiltY: 30)], fps: 15,
      interpolation: .linear)
    var speeds: [Double] = []
    for index in 0..<bench.scene.frameCount {
      let observation = try #require(bench.run(frame: index).0, "frame \(index)")
      if index >= 4 { speeds.append(observation.speed) }
    }
    let mean = speeds.reduce(0, +) / Double(speeds.count)
    #expect(abs(mean - 60) < 6)
    #expect(speeds.allSatisfy { abs($0 - 60) < 15 })
  }

  @Test func glareGrowsWithTheHighlight() throws {
    var shares: [Double] = []
    for strength in [0.0, 0.6, 1.2] {
      let keyframe = CardKeyframe(
        t: 0, tiltY: 10, distance: .widthRatio(0.45), glare: strength, glareX: 0.55, glareY: 0.55, glareRadius: 0.12)
      let observation = try #require(Bench(still(keyframe), seed: 11).run(frame: 0).0)
      shares.append(observation.glare)
    }
    #expect(shares[0] < 0.01)
    #expect(shares[1] > shares[0] + 0.01)
    #expect(shares[2] > shares[1] + 0.02)
  }

  @Test func blurFallsWithDefocusAndMotion() throws {
    var scores: [Double] = []
    for defocus in [0.0, 2, 4] {
      let keyframe = CardKeyframe(t: 0, tiltY: 10, distance: .widthRatio(0.45), defocus: defocus)
      let observation = try #require(Bench(still(keyframe), seed: 12).run(frame: 0).0)
      scores.append(observation.blur)
    }
    #expect(scores[0] > 0.8)
    #expect(scores[1] < scores[0] - 0.1)
    #expect(scores[2] < scores[1] - 0.1)
    // A fast sideways move with a long exposure.
    let moving = Bench(
      [
        CardKeyframe(t: 0, distance: .widthRatio(0.45), offsetX: -0.15),
        CardKeyframe(t: 1, distance: .widthRatio(0.45), offsetX: 0.15),
      ], fps: 10, shutter: 0.5, interpolation: .linear)
    let smeared = try #require(moving.run(frame: 5).0)
    #expect(smeared.blur < scores[0] - 0.2)
  }

  @Test func cropsThePortrait() throws {
    let bench = Bench(still(CardKeyframe(t: 0, tiltY: 20, distance: .widthRatio(0.5))))
    _ = try #require(bench.run(frame: 0).0)
    let portrait = ImageBuffer(format: .gray8)
    #expect(bench.estimator.cropPortrait(into: portrait))
    #expect(portrait.width == 120 && portrait.height == 162)
    // The drawn face: skin in the middle, darker hair above it, pale backdrop at the top corner.
    let skin = portrait[60, 80]
    let corner = portrait[5, 5]
    #expect(skin > 150)
    #expect(corner > 170)
  }

  @Test func writesMeasurements() throws {
    let schema = MeasurementSchema()
    let estimator = CardEstimator()
    try estimator.prepare(schema: schema)
    let frame = DecodedFrame()
    let scene = CardScene(
      schedule: CardSchedule(keyframes: still(CardKeyframe(t: 0, tiltY: 20, distance: .widthRatio(0.5)))),
      options: CardSceneOptions(width: 640, height: 360))
    try ImageConversion.rgb8ToGray8(scene.render(frame: 0), into: frame.gray)
    frame.sourceWidth = 640
    frame.sourceHeight = 360
    var measurements = MeasurementFrame(t: 0, index: 0)
    estimator.estimate(frame, into: &measurements)
    func value(_ path: String) -> MeasurementValue { measurements[schema.lookup(path: path)!] }
    #expect(value("card.found") == .bool(true))
    #expect(value("card.corners") == .table)
    guard case .number(let tiltY) = value("card.tilt_y"), case .number(let x) = value("card.corners.2.x") else {
      Issue.record("tilt_y or corners.2.x missing")
      return
    }
    // 60° assumed field of view, which is what the scene used.
    #expect(abs(tiltY - 20) < 2)
    #expect(abs(x - scene.truth(frame: 0).corners[1].x) < 2)
  }
}
