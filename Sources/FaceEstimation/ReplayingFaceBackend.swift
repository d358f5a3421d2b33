import Imaging

/// A face backend that reports the same faces image after image, cycling
/// through `frames`, written into the storage the estimator keeps: after the
/// first round it allocates nothing, as a backend on the hot path should.
public final class ReplayingFaceBackend: FaceBackend {
  public let name = "replaying"
  /// The faces of each image in turn (observations in pixels of a
  /// `width`-by-`height` image, scaled to the image given).
  public let frames: [[FaceObservation]]
  public let width: Int
  public let height: Int
  public private(set) var callCount = 0

  public init(frames: [[FaceObservation]], width: Int, height: Int) {
    precondition(!frames.isEmpty, "give at least one frame's faces")
    self.frames = frames
    self.width = width
    self.height = height
  }

  public func detect(_ image: ImageBuffer, timestampMilliseconds: Int64, into detections: inout FaceDetections)
    throws(FaceBackendError)
  {
    let faces = frames[callCount % frames.count]
    callCount += 1
    let scale = SIMD3<Float>(
      Float(image.width) / Float(width), Float(image.height) / Float(height), Float(image.width) / Float(width))
    detections.resize(to: faces.count)
    detections.imageWidth = image.width
    detections.imageHeight = image.height
    for index in faces.indices {
      detections.faces[index].landmarks.assign(faces[index].landmarks, scaledBy: scale)
      Self.copy(faces[index].blendshapes, into: &detections.faces[index].blendshapes)
      Self.copy(faces[index].transform, into: &detections.faces[index].transform)
    }
  }

  /// Element by element when the sizes match, so that the storage is reused.
  private static func copy<Element>(_ source: [Element], into target: inout [Element]) {
    guard target.count == source.count else {
      target = source
      return
    }
    for index in source.indices { target[index] = source[index] }
  }

  /// A face in a `width`-by-`height` image: a full mesh on a grid over
  /// the box (x, y, size in pixels), eyes open or closed by `blink`
  /// (blendshapes eyeBlinkLeft/Right), looking at the camera (an identity
  /// transformation matrix moved 50 cm away).
  public static func face(x: Float, y: Float, size: Float, blink: Float = 0.05) -> FaceObservation {
    var face = FaceObservation()
    face.landmarks = (0..<FaceMesh.pointCount).map { point in
      SIMD3(x + Float(point % 22) / 21 * size, y + Float(point / 22) / 21 * size, Float(point % 7))
    }
    face.blendshapes = [Float](repeating: 0.01, count: FaceBlendshape.allCases.count)
    face.blendshapes[FaceBlendshape.eyeBlinkLeft.rawValue] = blink
    face.blendshapes[FaceBlendshape.eyeBlinkRight.rawValue] = blink
    face.transform = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, -50, 1]
    return face
  }
}
