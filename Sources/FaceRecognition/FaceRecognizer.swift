import CFaceRecognition
import FaceEstimation
import Imaging

/// dlib's ResNet face-recognition network and its 5-point shape predictor,
/// loaded once. Not thread-safe: one thread at a time.
public final class FaceRecognizer {
  private let handle: OpaquePointer
  public let models: FaceRecognitionModels

  /// `blasThreads`: the threads OpenBLAS may use (the setting
  /// face.blas_threads); 0 leaves OpenBLAS as its environment set it.
  public init(models: FaceRecognitionModels, blasThreads: Int = 1) throws(FaceRecognitionError) {
    for path in [models.recognitionModel, models.shapeModel] where !FaceRecognitionModels.isFile(path) {
      throw FaceRecognitionError(
        .modelUnavailable, "no face recognition model at \(path)",
        help:
          "run \(FaceRecognitionModels.installCommand) to install it, or name one with the settings face.recognition_model and face.shape_model"
      )
    }
    var error = [CChar](repeating: 0, count: 512)
    guard let handle = wb_face_recognizer_open(models.recognitionModel, models.shapeModel, &error, error.count) else {
      throw FaceRecognitionError(
        .modelUnavailable, "the face recognition models do not load: \(FaceRecognitionError.text(error))",
        help: "run \(FaceRecognitionModels.installCommand) again: it checks the files' checksums")
    }
    self.handle = handle
    self.models = models
    // OpenBLAS starts a thread per core and spins them between calls: in a
    // live run they took the cores the frame loop and the face model use.
    if blasThreads > 0 { _ = wb_blas_set_threads(Int32(blasThreads)) }
  }

  /// The threads OpenBLAS uses now, for the whole process; nil when the BLAS is not OpenBLAS.
  public static var blasThreads: Int? {
    let threads = wb_blas_threads()
    return threads < 0 ? nil : Int(threads)
  }

  deinit { wb_face_recognizer_close(handle) }

  /// The alignment points that dlib's 5-point model finds inside `box`.
  public func alignmentPoints(in image: ImageBuffer, box: FaceBox) throws(FaceRecognitionError) -> AlignmentPoints {
    try Self.requireColor(image)
    var points = [Double](repeating: 0, count: 10)
    var error = [CChar](repeating: 0, count: 512)
    let corners = [box.x, box.y, box.width, box.height]
    let status = wb_face_recognizer_landmarks(handle, Self.view(image), corners, &points, &error, error.count)
    guard status == 0 else {
      throw FaceRecognitionError(.describeFailed, "the shape model failed: \(FaceRecognitionError.text(error))")
    }
    return AlignmentPoints(points: (0..<5).map { SIMD2(points[2 * $0], points[2 * $0 + 1]) })
  }

  /// The descriptor of the face at `points`; `chip`, when given, gets the
  /// aligned 150 × 150 crop the network read.
  public func describe(_ image: ImageBuffer, at points: AlignmentPoints, chip: ImageBuffer? = nil)
    throws(FaceRecognitionError) -> FaceDescriptor
  {
    try Self.requireColor(image)
    var values = [Float](repeating: 0, count: FaceDescriptor.length)
    var error = [CChar](repeating: 0, count: 512)
    let side = Int(WB_FACE_CHIP_SIDE)
    chip?.reshape(width: side, height: side, format: .rgb8)
    let status = wb_face_recognizer_describe(
      handle, Self.view(image), points.flat, &values, chip?.pixels, &error, error.count)
    guard status == 0 else {
      throw FaceRecognitionError(.describeFailed, "the recognition network failed: \(FaceRecognitionError.text(error))")
    }
    guard let descriptor = FaceDescriptor(values: values) else {
      throw FaceRecognitionError(.describeFailed, "the recognition network gave a value that is not a number")
    }
    return descriptor
  }

  private static func requireColor(_ image: ImageBuffer) throws(FaceRecognitionError) {
    guard image.format == .rgb8, image.width > 0, image.height > 0 else {
      throw FaceRecognitionError(.describeFailed, "faces are described from rgb8 images, not \(image.format)")
    }
  }

  private static func view(_ image: ImageBuffer) -> wb_rgb_image {
    wb_rgb_image(
      pixels: UnsafePointer(image.pixels), width: Int32(image.width), height: Int32(image.height),
      stride: Int32(image.rowBytes))
  }
}
