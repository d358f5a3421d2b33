import Imaging

/// A face model that finds faces in colour frames: the part of the face
/// estimator that another backend can replace. One instance per run, called
/// from one thread, frame after frame, with strictly increasing timestamps
/// (so that a backend can track faces between frames).
public protocol FaceBackend: AnyObject {
  /// Short name for messages and the estimator's summary ("mediapipe").
  var name: String { get }
  /// Finds the faces in `image` (rgb8) into `faces`, reusing its storage.
  func detect(_ image: ImageBuffer, timestampMilliseconds: Int64, into faces: inout FaceDetections)
    throws(FaceBackendError)
}

/// What went wrong with a face backend; `help` says what to do about it.
public struct FaceBackendError: Error, Sendable, Equatable, CustomStringConvertible {
  public enum Kind: Sendable, Equatable {
    /// The native library is not there or cannot be loaded.
    case libraryUnavailable
    /// The model file is not there or the library rejects it.
    case modelUnavailable
    /// The library failed on a frame.
    case detectionFailed
    /// An option is out of range.
    case invalidOption
  }

  public var kind: Kind
  public var message: String
  public var help: String?

  public init(_ kind: Kind, _ message: String, help: String? = nil) {
    self.kind = kind
    self.message = message
    self.help = help
  }

  public var description: String { message }
}

/// One face of a frame, in pixels of the image the backend was given.
public struct FaceObservation: Sendable {
  /// The points of the face mesh (478 for MediaPipe's; `FaceMesh` names
  /// the ones the estimator uses): x right and y down in pixels, z in the
  /// same scale as x, smaller nearer the camera.
  public var landmarks: [SIMD3<Float>] = []
  /// Blendshape scores in [0, 1], indexed by `FaceBlendshape.rawValue`;
  /// empty when the backend gives none.
  public var blendshapes: [Float] = []
  /// The facial transformation matrix (canonical face model → camera,
  /// column-major 4×4); empty when the backend gives none.
  public var transform: [Float] = []

  public init() {}

  public func blendshape(_ shape: FaceBlendshape) -> Float? {
    shape.rawValue < blendshapes.count ? blendshapes[shape.rawValue] : nil
  }
}

/// The faces of one frame. The storage of `faces` is kept from frame to
/// frame: only `count` entries are valid.
public struct FaceDetections: Sendable {
  public var faces: [FaceObservation] = []
  public var count = 0
  /// The size of the image the coordinates refer to.
  public var imageWidth = 0
  public var imageHeight = 0

  public init() {}

  /// The valid faces.
  public var valid: ArraySlice<FaceObservation> { faces[0..<count] }

  /// Makes room for `count` faces and marks them valid.
  public mutating func resize(to count: Int) {
    while faces.count < count { faces.append(FaceObservation()) }
    self.count = count
  }
}

/// The 52 blendshapes of MediaPipe's face model (ARKit's names), in the
/// model's order. "Left" is the person's own left in an unmirrored image.
public enum FaceBlendshape: Int, CaseIterable, Sendable {
  case neutral, browDownLeft, browDownRight, browInnerUp, browOuterUpLeft, browOuterUpRight, cheekPuff
  case cheekSquintLeft, cheekSquintRight, eyeBlinkLeft, eyeBlinkRight, eyeLookDownLeft, eyeLookDownRight
  case eyeLookInLeft, eyeLookInRight, eyeLookOutLeft, eyeLookOutRight, eyeLookUpLeft, eyeLookUpRight
  case eyeSquintLeft, eyeSquintRight, eyeWideLeft, eyeWideRight, jawForward, jawLeft, jawOpen, jawRight
  case mouthClose, mouthDimpleLeft, mouthDimpleRight, mouthFrownLeft, mouthFrownRight, mouthFunnel, mouthLeft
  case mouthLowerDownLeft, mouthLowerDownRight, mouthPressLeft, mouthPressRight, mouthPucker, mouthRight
  case mouthRollLower, mouthRollUpper, mouthShrugLower, mouthShrugUpper, mouthSmileLeft, mouthSmileRight
  case mouthStretchLeft, mouthStretchRight, mouthUpperUpLeft, mouthUpperUpRight, noseSneerLeft, noseSneerRight

  /// The model's category name ("eyeBlinkLeft"; "_neutral" for the first).
  public var name: String { self == .neutral ? "_neutral" : String(describing: self) }
}
