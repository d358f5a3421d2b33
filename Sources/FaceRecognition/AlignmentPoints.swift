import FaceEstimation

/// The five points a face is aligned by before it is described, in dlib's
/// order: the outer and inner corner of the eye on the image's right, the
/// outer and inner corner of the eye on the image's left, the base of the
/// nose. In pixels of the image being described.
public struct AlignmentPoints: Sendable, Equatable {
  public var points: [SIMD2<Double>]

  public init(points: [SIMD2<Double>]) {
    precondition(points.count == 5, "five alignment points")
    self.points = points
  }

  /// The points from MediaPipe's face mesh: its eye corners (33, 133, 362,
  /// 263) and the base of the nose (2), `scale` times the mesh's pixels.
  /// Which eye is on the image's right is read off the mesh, so a mirrored
  /// frame aligns the same.
  public init?(mesh landmarks: [SIMD3<Float>], scale: Double = 1) {
    guard landmarks.count > 362 else { return nil }
    func point(_ index: Int) -> SIMD2<Double> {
      SIMD2(Double(landmarks[index].x) * scale, Double(landmarks[index].y) * scale)
    }
    var right = (outer: point(263), inner: point(362))
    var left = (outer: point(33), inner: point(133))
    if right.outer.x + right.inner.x < left.outer.x + left.inner.x { swap(&right, &left) }
    self.init(points: [right.outer, right.inner, left.outer, left.inner, point(2)])
  }

  /// x0, y0, …, x4, y4.
  var flat: [Double] { points.flatMap { [$0.x, $0.y] } }
}

/// How a face is aligned before it is described (setting `face.alignment`).
public enum FaceAlignment: String, Sendable, CaseIterable {
  /// From the face mesh the face estimator already found: no extra model.
  case mesh
  /// dlib's 5-point shape predictor inside the face's box, the landmarks
  /// the recognition network was trained with.
  case shapePredictor = "shape5"
}
