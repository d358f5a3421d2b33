import Foundation

/// An axis-aligned rectangle in pixels (not clamped to the frame).
public struct FaceBox: Sendable, Equatable {
  public var x: Double
  public var y: Double
  public var width: Double
  public var height: Double

  public init(x: Double, y: Double, width: Double, height: Double) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }

  public var area: Double { max(0, width) * max(0, height) }
  public var centerX: Double { x + width / 2 }
  public var centerY: Double { y + height / 2 }

  /// The shared area over the smaller box's area: 1 when one box lies
  /// inside the other, 0 when they do not touch.
  public func overlap(_ other: FaceBox) -> Double {
    let width = min(x + self.width, other.x + other.width) - max(x, other.x)
    let height = min(y + self.height, other.y + other.height) - max(y, other.y)
    guard width > 0, height > 0 else { return 0 }
    let smaller = min(area, other.area)
    return smaller > 0 ? width * height / smaller : 0
  }

  public func scaled(x scaleX: Double, y scaleY: Double) -> FaceBox {
    FaceBox(x: x * scaleX, y: y * scaleY, width: width * scaleX, height: height * scaleY)
  }
}

/// Head pose in degrees, in the person's terms for an unmirrored image:
/// positive yaw = the person turns to their own left, positive pitch =
/// looking up, positive roll = the head tilts toward their own left
/// shoulder. docs/face.md.
public struct HeadPose: Sendable, Equatable {
  public var yaw: Double
  public var pitch: Double
  public var roll: Double

  public init(yaw: Double, pitch: Double, roll: Double) {
    self.yaw = yaw
    self.pitch = pitch
    self.roll = roll
  }

  /// The pose of the same head seen in a mirror image.
  public var mirrored: HeadPose { HeadPose(yaw: -yaw, pitch: pitch, roll: -roll) }
}

/// Points of MediaPipe's 478-point face mesh. "Right" and "left" are the
/// person's own, in an unmirrored image (their right eye is on the image's
/// left).
public enum FaceMesh {
  /// Outer corner, two upper-lid points, inner corner, two lower-lid points
  /// (p1…p6 of the eye aspect ratio).
  public static let rightEye = [33, 160, 158, 133, 153, 144]
  public static let leftEye = [362, 385, 387, 263, 373, 380]
  public static let noseTip = 1
  public static let pointCount = 478
}

public enum FaceGeometry {
  /// The smallest rectangle around the points (x, y in pixels).
  public static func box(of landmarks: [SIMD3<Float>]) -> FaceBox {
    guard var minX = landmarks.first?.x, var minY = landmarks.first?.y else {
      return FaceBox(x: 0, y: 0, width: 0, height: 0)
    }
    var maxX = minX
    var maxY = minY
    for point in landmarks {
      minX = min(minX, point.x)
      maxX = max(maxX, point.x)
      minY = min(minY, point.y)
      maxY = max(maxY, point.y)
    }
    return FaceBox(x: Double(minX), y: Double(minY), width: Double(maxX - minX), height: Double(maxY - minY))
  }

  /// (|p2−p6| + |p3−p5|) / (2 |p1−p4|) over six points in pixels (the eye
  /// aspect ratio of Soukupová and Čech): about 0.3 for an open eye, under
  /// 0.15 for a closed one. Nil when the points are missing or degenerate.
  public static func eyeAspectRatio(_ landmarks: [SIMD3<Float>], _ eye: [Int]) -> Double? {
    guard eye.count == 6, let last = eye.max(), last < landmarks.count else { return nil }
    func distance(_ a: Int, _ b: Int) -> Double {
      let d = landmarks[eye[a]] - landmarks[eye[b]]
      return Double((d.x * d.x + d.y * d.y).squareRoot())
    }
    let width = distance(0, 3)
    guard width > 0 else { return nil }
    return (distance(1, 5) + distance(2, 4)) / (2 * width)
  }

  /// Yaw, pitch and roll from a facial transformation matrix (column-major
  /// 4×4, canonical face model → camera; the camera looks down −z with x to
  /// the image's right and y up, and the model's +x is the person's left).
  /// With R = Ry(ψ) Rx(θ) Rz(φ): the face's forward axis (R's third column)
  /// gives ψ and the pitch, and R's second row gives φ. Nil for anything
  /// but 16 finite numbers.
  public static func pose(fromTransform m: [Float]) -> HeadPose? {
    guard m.count == 16, m.allSatisfy(\.isFinite) else { return nil }
    // Element (row r, column c) is m[c * 4 + r].
    let forward = (x: Double(m[8]), y: Double(m[9]), z: Double(m[10]))
    let length = (forward.x * forward.x + forward.y * forward.y + forward.z * forward.z).squareRoot()
    guard length > 1e-6 else { return nil }
    let degrees = 180 / Double.pi
    // Facing the image's right is turning to the person's left.
    let yaw = atan2(forward.x, forward.z) * degrees
    let pitch = asin(max(-1, min(1, forward.y / length))) * degrees
    // φ > 0 lifts the person's left side: a tilt toward the right shoulder.
    let roll = -atan2(Double(m[1]), Double(m[5])) * degrees
    return HeadPose(yaw: yaw, pitch: pitch, roll: roll)
  }
}

extension [SIMD3<Float>] {
  /// Becomes `source` times `scale`, point by point, in the storage it has
  /// when the counts match (the hot path's landmarks are rewritten each frame).
  mutating func assign(_ source: [SIMD3<Float>], scaledBy scale: SIMD3<Float>) {
    if count != source.count { self = source }
    for index in source.indices { self[index] = source[index] * scale }
  }
}
