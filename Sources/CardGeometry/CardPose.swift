import Foundation

/// A pinhole camera without distortion. Image coordinates are pixels with
/// the centre of the top-left pixel at (0, 0), x to the right and y down;
/// the principal point is the centre of the frame.
public struct PinholeCamera: Sendable, Equatable {
  /// Focal length in pixels.
  public var focal: Double
  public var width: Int
  public var height: Int

  public init(focal: Double, width: Int, height: Int) {
    self.focal = focal
    self.width = width
    self.height = height
  }

  /// The horizontal field of view assumed when the focal length is unknown.
  public static let defaultHorizontalFieldOfView = 60.0

  /// A camera whose horizontal field of view is `degrees`.
  public init(width: Int, height: Int, horizontalFieldOfView degrees: Double = defaultHorizontalFieldOfView) {
    self.init(focal: Self.focal(width: width, horizontalFieldOfView: degrees), width: width, height: height)
  }

  /// (width / 2) / tan(fov / 2): 1108.5 px for 1280 px at 60°.
  public static func focal(width: Int, horizontalFieldOfView degrees: Double = defaultHorizontalFieldOfView)
    -> Double
  {
    Double(width) / 2 / tan(degrees * .pi / 360)
  }

  public var centerX: Double { Double(width - 1) / 2 }
  public var centerY: Double { Double(height - 1) / 2 }

  public var intrinsics: Matrix3 { Matrix3([focal, 0, centerX, 0, focal, centerY, 0, 0, 1]) }

  public func project(_ p: Vector3) -> Point2 {
    Point2(focal * p.x / p.z + centerX, focal * p.y / p.z + centerY)
  }
}

/// Where a card is relative to the camera.
///
/// Card coordinates are millimetres with the origin at the card's centre, x
/// to the right and y down as printed, z into the card (away from a camera
/// that sees the printed side). Camera coordinates: x right, y down, z
/// along the optical axis. A card point P lands at `rotation · P + translation`.
///
/// The rotation is `roll · tiltY · tiltX` (applied right to left: tilt_x
/// first, about the card's horizontal axis; then tilt_y about the vertical
/// axis; then roll in the image plane). Signs (docs/card.md):
/// - `tiltX` > 0: the top edge moves away from the camera (card flipped "up");
/// - `tiltY` > 0: the printed left edge (the image's left in an unmirrored
///   picture, the holder's right) moves away from the camera, so the face turns
///   towards the holder's right ("flip right");
/// - `roll` > 0: clockwise as seen in the image.
public struct CardPose: Sendable, Equatable {
  /// Degrees.
  public var tiltX: Double
  public var tiltY: Double
  public var roll: Double
  /// The card centre in camera coordinates, millimetres.
  public var translation: Vector3

  public init(tiltX: Double = 0, tiltY: Double = 0, roll: Double = 0, translation: Vector3) {
    self.tiltX = tiltX
    self.tiltY = tiltY
    self.roll = roll
    self.translation = translation
  }

  /// Depth of the card centre along the optical axis, millimetres.
  public var distance: Double { translation.z }

  public var rotation: Matrix3 {
    let a = tiltX * .pi / 180
    let b = tiltY * .pi / 180
    let c = roll * .pi / 180
    let rx = Matrix3([1, 0, 0, 0, cos(a), sin(a), 0, -sin(a), cos(a)])
    let ry = Matrix3([cos(b), 0, sin(b), 0, 1, 0, -sin(b), 0, cos(b)])
    let rz = Matrix3([cos(c), -sin(c), 0, sin(c), cos(c), 0, 0, 0, 1])
    return rz * ry * rx
  }

  /// The angles of a rotation matrix (the inverse of `rotation`).
  public init(rotation r: Matrix3, translation: Vector3) {
    let tiltY = asin(max(-1, min(1, -r[2, 0])))
    let alpha = atan2(r[2, 1], r[2, 2])
    let roll = atan2(r[1, 0], r[0, 0])
    self.init(tiltX: -alpha * 180 / .pi, tiltY: tiltY * 180 / .pi, roll: roll * 180 / .pi, translation: translation)
  }

  /// The homography from card millimetres to image pixels.
  public func homography(camera: PinholeCamera) -> Homography {
    let r = rotation
    return Homography(camera.intrinsics * Matrix3(columns: r.column(0), r.column(1), translation))
  }

  /// A card point in camera coordinates.
  public func cameraPoint(_ p: Point2) -> Vector3 {
    rotation * Vector3(p.x, p.y, 0) + translation
  }

  /// The card's corners in the image (top-left, top-right, bottom-right, bottom-left as printed).
  public func projectedCorners(camera: PinholeCamera) -> [Point2] {
    CardFormat.corners.map { camera.project(cameraPoint($0)) }
  }

  /// The pose whose image is the homography `h` (card millimetres to
  /// pixels), and how far `h` is from any rectangle of the card's shape
  /// seen by `camera`: 0 for an exact card, growing with the mismatch in
  /// scale and angle of the two axes. Nil when `h` is degenerate or the
  /// card would be behind the camera.
  public static func from(homography h: Homography, camera: PinholeCamera) -> (pose: CardPose, residual: Double)? {
    guard let kInverse = camera.intrinsics.inverse else { return nil }
    let m = kInverse * h.matrix
    let m1 = m.column(0)
    let m2 = m.column(1)
    let m3 = m.column(2)
    let n1 = m1.length
    let n2 = m2.length
    guard n1 > 1e-12, n2 > 1e-12 else { return nil }
    var lambda = 2 / (n1 + n2)
    if m3.z * lambda < 0 { lambda = -lambda }
    let a = m1 * (1 / n1)
    let b = m2 * (1 / n2)
    let residual = abs(n1 - n2) / ((n1 + n2) / 2) + abs(a.dot(b))
    // The nearest orthonormal pair, symmetric in the two axes.
    let sum = (a + b).normalized
    let difference = (a - b).normalized
    let scale = 1 / 2.0.squareRoot()
    var r1 = (sum + difference) * scale
    var r2 = (sum - difference) * scale
    if lambda < 0 {
      r1 = r1 * -1
      r2 = r2 * -1
    }
    let r3 = r1.cross(r2)
    let translation = m3 * lambda
    guard translation.z > 0 else { return nil }
    let pose = CardPose(rotation: Matrix3(columns: r1, r2, r3), translation: translation)
    return (pose, residual)
  }

  /// The angle between two card orientations, degrees.
  public func angle(to other: CardPose) -> Double {
    (rotation * other.rotation.transposed).rotationAngle * 180 / .pi
  }
}
