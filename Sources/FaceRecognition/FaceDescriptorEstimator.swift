import Estimators
import FaceEstimation
import Imaging
import Logging
import Measurements

/// The descriptor estimator: in a run whose steps need `face.descriptor`,
/// it checks the recognition model when the run starts (a missing model is
/// an error then, not half way through a flow) and describes faces when the
/// flow asks (`ctx.describe_face`): the live face of the frame being
/// processed, as the face estimator found it, or the one face of an image
/// such as a card's portrait. A descriptor costs about 15 ms, so it is not
/// computed for every frame: `face.descriptor` is never a per-frame value.
public final class FaceDescriptorEstimator: Estimator {
  public static let name = "face.descriptor.dlib"
  public let descriptor: EstimatorDescriptor
  public let models: FaceRecognitionModels
  public let alignment: FaceAlignment
  /// face.blas_threads.
  public let blasThreads: Int
  private let face: FaceEstimator
  private let logger: Logger
  private var recognizer: FaceRecognizer?
  private var stills: StillFaces?

  public init(
    face: FaceEstimator, models: FaceRecognitionModels, alignment: FaceAlignment = .mesh, blasThreads: Int = 1,
    logger: Logger = Logger(label: "workbench.face")
  ) {
    self.face = face
    self.blasThreads = blasThreads
    self.models = models
    self.alignment = alignment
    self.logger = logger
    descriptor = EstimatorDescriptor(
      name: Self.name,
      summary: "face descriptors (dlib ResNet, 128-d) of the live face or a card's portrait, when the flow asks",
      provides: ["face.descriptor"], fields: [MeasurementField("face.descriptor", .onRequest)], needs: ["face"],
      image: .color, workingWidth: 640)
  }

  /// Checks that the models are there; they load when the flow first
  /// asks for a descriptor, so a run that never asks does not pay for it.
  public func prepare(schema: MeasurementSchema) throws(EstimatorError) {
    for path in [models.recognitionModel, models.shapeModel] where !FaceRecognitionModels.isFile(path) {
      throw EstimatorError(
        estimator: Self.name, "no face recognition model at \(path)",
        help:
          "run \(FaceRecognitionModels.installCommand) to install it, or name one with the settings face.recognition_model and face.shape_model"
      )
    }
  }

  /// Nothing per frame: describing waits for the flow to ask.
  public func estimate(_ frame: DecodedFrame, into measurements: inout MeasurementFrame) {}

  /// The descriptor of the largest face of `frame`, the frame the face
  /// estimator measured last.
  public func describeLargestFace(in frame: DecodedFrame) throws(FaceRecognitionError) -> DescribedFace {
    let recognizer = try loadedRecognizer()
    guard let largest = face.faces.first else {
      throw FaceRecognitionError(.noFace, "no face in the frame")
    }
    guard frame.hasColor, frame.color.width > 0 else {
      throw FaceRecognitionError(.describeFailed, "the frame has no colour image to describe")
    }
    let sourceWidth = frame.sourceWidth > 0 ? frame.sourceWidth : frame.width
    let scale = Double(frame.color.width) / Double(max(sourceWidth, 1))
    let points: AlignmentPoints
    switch alignment {
    case .mesh:
      guard let mesh = AlignmentPoints(mesh: largest.landmarks, scale: scale) else {
        throw FaceRecognitionError(.describeFailed, "the face has no mesh to align it by")
      }
      points = mesh
    case .shapePredictor:
      let box = FaceBox(
        x: largest.box.x * scale, y: largest.box.y * scale, width: largest.box.width * scale,
        height: largest.box.height * scale)
      points = try recognizer.alignmentPoints(in: frame.color, box: box)
    }
    let aligned = ImageBuffer(format: .rgb8)
    let descriptor = try recognizer.describe(frame.color, at: points, chip: aligned)
    return DescribedFace(descriptor: descriptor, box: largest.box, chip: FaceChip.jpeg(aligned))
  }

  /// The descriptor of the one face of `image` (a card's portrait).
  public func describeSingleFace(in image: ImageBuffer) throws(FaceRecognitionError) -> DescribedFace {
    let stills = try loadedStills()
    let found = try stills.faces(in: image)
    guard let first = found.first else { throw FaceRecognitionError(.noFace, "no face in the image") }
    return try stills.describe(first, in: image)
  }

  private func loadedRecognizer() throws(FaceRecognitionError) -> FaceRecognizer {
    if let recognizer { return recognizer }
    let loaded = try FaceRecognizer(models: models, blasThreads: blasThreads)
    recognizer = loaded
    return loaded
  }

  private func loadedStills() throws(FaceRecognitionError) -> StillFaces {
    if let stills { return stills }
    let made = try StillFaces(
      face: face.options, recognizer: try loadedRecognizer(), alignment: alignment, logger: logger)
    stills = made
    return made
  }
}
