import CardGeometry
import Testing

@Suite struct CardPoseTests {
  let camera = PinholeCamera(focal: 1000, width: 1280, height: 720)

  @Test(arguments: [(0.0, 0.0, 0.0), (40, 0, 0), (0, -40, 0), (25, 30, 10), (-44, 12, -20)])
  func poseSurvivesItsHomography(tiltX: Double, tiltY: Double, roll: Double) throws {
    let pose = CardPose(tiltX: tiltX, tiltY: tiltY, roll: roll, translation: Vector3(12, -8, 220))
    let (recovered, residual) = try #require(CardPose.from(homography: pose.homography(camera: camera), camera: camera))
    #expect(abs(recovered.tiltX - tiltX) < 1e-6)
    #expect(abs(recovered.tiltY - tiltY) < 1e-6)
    #expect(abs(recovered.roll - roll) < 1e-6)
    #expect(abs(recovered.distance - 220) < 1e-6)
    #expect(residual < 1e-9)
  }

  @Test func homographyFromCornersMatchesTheProjection() throws {
    let pose = CardPose(tiltX: 20, tiltY: -35, roll: 5, translation: Vector3(0, 0, 250))
    let corners = pose.projectedCorners(camera: camera)
    let h = try #require(Homography(from: CardFormat.corners, to: corners))
    let (recovered, _) = try #require(CardPose.from(homography: h, camera: camera))
    #expect(abs(recovered.tiltY + 35) < 1e-6)
    #expect(abs(recovered.tiltX - 20) < 1e-6)
  }

  @Test func signConventions() {
    // Positive tilt_x: the top edge goes away (deeper).
    let up = CardPose(tiltX: 30, translation: Vector3(0, 0, 200))
    #expect(up.cameraPoint(Point2(0, -20)).z > 200)
    // Positive tilt_y: the printed left edge goes away, so it looks shorter.
    let right = CardPose(tiltY: 30, translation: Vector3(0, 0, 200))
    let corners = right.projectedCorners(camera: camera)
    let leftEdge = corners[0].distance(to: corners[3])
    let rightEdge = corners[1].distance(to: corners[2])
    #expect(leftEdge < rightEdge)
    // Positive roll: clockwise on screen, so the top-right corner moves down.
    let rolled = CardPose(roll: 10, translation: Vector3(0, 0, 200)).projectedCorners(camera: camera)
    #expect(rolled[1].y > rolled[0].y)
  }

  @Test func aRectangleOfAnotherShapeHasAResidual() throws {
    // A square seen front-on is no card.
    let square = [Point2(500, 200), Point2(700, 200), Point2(700, 400), Point2(500, 400)]
    let h = try #require(Homography(from: CardFormat.corners, to: square))
    let (_, residual) = try #require(CardPose.from(homography: h, camera: camera))
    #expect(residual > 0.3)
  }

  @Test func angleBetweenPoses() {
    let a = CardPose(tiltY: 10, translation: Vector3(0, 0, 200))
    let b = CardPose(tiltY: 25, translation: Vector3(0, 0, 200))
    #expect(abs(a.angle(to: b) - 15) < 1e-9)
  }
}
