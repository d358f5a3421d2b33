import CardGeometry
import Foundation
import Testing

@Suite struct FocalLengthCalibrationTests {
  /// The homography of a card in `pose` seen by `camera`, from its corners
  /// moved by up to `jitter` pixels (a detector's error).
  func view(_ pose: CardPose, _ camera: PinholeCamera, jitter: Double = 0, seed: Int = 0) -> Homography? {
    var corners = pose.projectedCorners(camera: camera)
    for index in corners.indices {
      let angle = Double(seed * 4 + index) * 2.399
      corners[index] = Point2(corners[index].x + jitter * cos(angle), corners[index].y + jitter * sin(angle))
    }
    return Homography(from: CardFormat.corners, to: corners)
  }

  @Test(arguments: [40.0, 60.0, 90.0])
  func oneTiltedViewGivesTheFocalLength(fieldOfView: Double) throws {
    let camera = PinholeCamera(width: 1280, height: 720, horizontalFieldOfView: fieldOfView)
    let pose = CardPose(tiltX: 10, tiltY: 35, roll: 5, translation: Vector3(20, -10, camera.focal * 85.6 / 500))
    let h = try #require(view(pose, camera))
    let (focal, weight) = try #require(FocalLengthCalibration.view(h, width: 1280, height: 720))
    #expect(abs(focal - camera.focal) / camera.focal < 1e-6, "\(focal) for \(camera.focal)")
    #expect(weight > FocalLengthCalibration.minimumViewWeight)
  }

  @Test func aCardFacingTheCameraSaysNothing() throws {
    let camera = PinholeCamera(width: 1280, height: 720, horizontalFieldOfView: 45)
    let pose = CardPose(translation: Vector3(0, 0, 300))
    let h = try #require(view(pose, camera))
    if let (_, weight) = FocalLengthCalibration.view(h, width: 1280, height: 720) {
      #expect(weight < FocalLengthCalibration.minimumViewWeight)
    }
    var calibration = FocalLengthCalibration()
    for _ in 0..<20 { calibration.add(h, width: 1280, height: 720) }
    #expect(calibration.focal == nil)
  }

  @Test(arguments: [45.0, 75.0])
  func aFlipWithNoisyCornersGivesTheFocalLengthWithinTwoPercent(fieldOfView: Double) throws {
    let camera = PinholeCamera(width: 1280, height: 720, horizontalFieldOfView: fieldOfView)
    var calibration = FocalLengthCalibration()
    // A flip right to 40° and back, then up: half a pixel of corner noise.
    let tilts = (0...40).map(Double.init) + (0...40).map { 40 - Double($0) }
    for (index, tilt) in tilts.enumerated() {
      let pose = CardPose(
        tiltX: index > 40 ? tilt : 0, tiltY: index <= 40 ? tilt : 0,
        translation: Vector3(0, 0, camera.focal * 85.6 / 560))
      let h = try #require(view(pose, camera, jitter: 0.5, seed: index))
      calibration.add(h, width: 1280, height: 720)
    }
    let focal = try #require(calibration.focal)
    #expect(abs(focal - camera.focal) / camera.focal < 0.02, "\(focal) for \(camera.focal)")
  }

  @Test func aFewWrongViewsDoNotMoveTheEstimate() throws {
    let camera = PinholeCamera(width: 640, height: 360, horizontalFieldOfView: 70)
    let wrong = PinholeCamera(width: 640, height: 360, horizontalFieldOfView: 30)
    var calibration = FocalLengthCalibration()
    for index in 0..<30 {
      let pose = CardPose(tiltY: 20 + Double(index), translation: Vector3(0, 0, camera.focal * 85.6 / 300))
      let h = try #require(view(pose, index % 5 == 0 ? wrong : camera))
      calibration.add(h, width: 640, height: 360)
    }
    let focal = try #require(calibration.focal)
    #expect(abs(focal - camera.focal) / camera.focal < 0.01, "\(focal) for \(camera.focal)")
  }

  @Test func theEstimateIsInPixelsOfTheFrameAsCaptured() throws {
    let camera = PinholeCamera(width: 320, height: 180, horizontalFieldOfView: 50)
    let pose = CardPose(tiltY: 40, translation: Vector3(0, 0, camera.focal * 85.6 / 150))
    var calibration = FocalLengthCalibration()
    let h = try #require(view(pose, camera))
    for _ in 0..<3 { calibration.add(h, width: 320, height: 180, scale: 4) }
    let focal = try #require(calibration.focal)
    #expect(abs(focal - 4 * camera.focal) < 0.01 * camera.focal)
  }
}
