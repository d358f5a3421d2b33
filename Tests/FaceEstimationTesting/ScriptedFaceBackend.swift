import FaceEstimation
import Imaging

/// A face backend that reports scripted faces, so that what uses a backend
/// runs in tests without MediaPipe: `faces[k]` for the k-th image it is
/// given, then `afterwards` for every later one. It notes every call.
public final class ScriptedFaceBackend: FaceBackend {
  /// One image the backend was given.
  public struct Call: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var timestamp: Int64
  }

  public let name: String
  public var faces: [[ScriptedFace]]
  public var afterwards: [ScriptedFace]
  public private(set) var calls: [Call] = []

  public init(name: String = "scripted", faces: [[ScriptedFace]], afterwards: [ScriptedFace] = []) {
    self.name = name
    self.faces = faces
    self.afterwards = afterwards
  }

  /// The same faces in every image.
  public convenience init(name: String = "scripted", everyImage faces: [ScriptedFace]) {
    self.init(name: name, faces: [], afterwards: faces)
  }

  public func detect(_ image: ImageBuffer, timestampMilliseconds: Int64, into detections: inout FaceDetections)
    throws(FaceBackendError)
  {
    let scripted = calls.count < faces.count ? faces[calls.count] : afterwards
    calls.append(Call(width: image.width, height: image.height, timestamp: timestampMilliseconds))
    detections.resize(to: scripted.count)
    for (index, face) in scripted.enumerated() {
      switch face {
      case .box(let x, let y, let width, let height):
        let x0 = Float(x * Double(image.width))
        let y0 = Float(y * Double(image.height))
        let x1 = Float((x + width) * Double(image.width))
        let y1 = Float((y + height) * Double(image.height))
        detections.faces[index].landmarks = [SIMD3(x0, y0, 0), SIMD3(x1, y1, 0), SIMD3((x0 + x1) / 2, y1, 0)]
      case .observation(let observation):
        detections.faces[index] = observation
      }
    }
  }
}

/// One face a ``ScriptedFaceBackend`` reports.
public enum ScriptedFace: Sendable {
  /// A face filling a box in normalised image coordinates (0–1, y down):
  /// three landmarks, its top-left and bottom-right corners and the middle
  /// of its bottom edge, which is all a face's bounds need.
  case box(x: Double, y: Double, width: Double, height: Double)
  /// A whole observation, in pixels of the image.
  case observation(FaceObservation)
}
