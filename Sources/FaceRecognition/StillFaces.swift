import CFaceRecognition
import Estimators
import FaceEstimation
import Foundation
import Imaging
import Logging
import Measurements

/// One face of a photo, described.
public struct DescribedFace: Sendable {
  public var descriptor: FaceDescriptor
  /// In the photo's pixels.
  public var box: FaceBox
  /// The aligned 150 × 150 face the network read, as a JPEG.
  public var chip: [UInt8]?
}

/// The aligned face as a small JPEG, to keep beside its descriptor.
enum FaceChip {
  static func jpeg(_ chip: ImageBuffer) -> [UInt8]? {
    guard chip.width > 0 else { return nil }
    return try? JPEGEncoder().encode(chip, quality: 85)
  }
}

/// Finds and describes the faces of photos (enrollment images, a card's
/// portrait): the face estimator in image mode finds them, the recognizer
/// describes them. One photo at a time.
public final class StillFaces {
  /// A face whose box is smaller than this share of the largest face's is
  /// someone in the background, not a second subject: it does not make a
  /// photo "several faces".
  public static let backgroundShare = 0.5

  public let recognizer: FaceRecognizer
  public let alignment: FaceAlignment
  private let estimator: FaceEstimator
  private let schema = MeasurementSchema()
  private let frame = DecodedFrame()
  private let jpeg = JPEGDecoder()

  public init(
    face: FaceEstimatorOptions, recognizer: FaceRecognizer, alignment: FaceAlignment = .mesh,
    logger: Logger = Logger(label: "workbench.face")
  ) throws(FaceRecognitionError) {
    var options = face
    options.backend.tracksFaces = false
    // A photo is looked at once: the tiled search finds group photos' smaller faces too.
    options.backend.searchTiles = 2
    options.mirror = false
    estimator = FaceEstimator(options: options, logger: logger)
    do {
      try estimator.prepare(schema: schema)
    } catch {
      throw FaceRecognitionError(.modelUnavailable, error.message, help: error.help)
    }
    self.recognizer = recognizer
    self.alignment = alignment
  }

  /// The photo at `path`, decoded to rgb8: JPEG by libjpeg-turbo, PNG and
  /// BMP by dlib.
  public func read(_ path: String) throws(FaceRecognitionError) -> ImageBuffer {
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
      throw FaceRecognitionError(
        .unreadableImage, "this is a folder, not a photo", help: "give the path of a JPEG, PNG or BMP photo",
        file: path)
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      let exists = FileManager.default.fileExists(atPath: path)
      throw FaceRecognitionError(
        .unreadableImage, exists ? "the image cannot be read" : "there is no image at this path",
        help: exists ? "check the file's permissions" : "give the path of a JPEG, PNG or BMP photo", file: path)
    }
    let image = ImageBuffer(format: .rgb8)
    if data.starts(with: [0xFF, 0xD8]) {
      do {
        try jpeg.decode([UInt8](data), into: image, format: .rgb8)
      } catch {
        throw FaceRecognitionError(.unreadableImage, "the JPEG does not decode: \(error)", file: path)
      }
      return image
    }
    if let problem = ImageHeader([UInt8](data.prefix(64)))?.sizeProblem {
      throw FaceRecognitionError(.unreadableImage, problem, help: "scale the photo down, then try again", file: path)
    }
    var width: Int32 = 0
    var height: Int32 = 0
    var error = [CChar](repeating: 0, count: 512)
    guard let pixels = wb_face_image_load(path, &width, &height, &error, error.count) else {
      throw FaceRecognitionError(
        .unreadableImage, "not an image workbench reads (\(FaceRecognitionError.text(error)))",
        help: "give a JPEG, PNG or BMP photo", file: path)
    }
    defer { wb_face_image_free(pixels) }
    image.reshape(width: Int(width), height: Int(height), format: .rgb8)
    image.pixels.update(from: pixels, count: image.byteCount)
    return image
  }

  /// Every face of `image` that is not in the background, largest first.
  public func faces(in image: ImageBuffer) throws(FaceRecognitionError) -> [FaceMeasurement] {
    frame.color.reshape(width: image.width, height: image.height, format: .rgb8)
    frame.color.pixels.update(from: image.pixels, count: image.byteCount)
    frame.hasColor = true
    do {
      try ImageConversion.rgb8ToGray8(image, into: frame.gray)
    } catch {
      throw FaceRecognitionError(.unreadableImage, "the image cannot be converted: \(error)")
    }
    frame.sourceWidth = image.width
    frame.sourceHeight = image.height
    frame.index += 1
    var measurements = MeasurementFrame(t: 0, index: frame.index)
    estimator.estimate(frame, into: &measurements)
    guard let largest = estimator.faces.first else { return [] }
    let side = max(largest.box.width, largest.box.height)
    return estimator.faces.filter { max($0.box.width, $0.box.height) >= side * Self.backgroundShare }
  }

  /// The descriptor of `face`, found in `image`.
  public func describe(_ face: FaceMeasurement, in image: ImageBuffer, chip: ImageBuffer? = nil)
    throws(FaceRecognitionError) -> DescribedFace
  {
    let points: AlignmentPoints
    switch alignment {
    case .mesh:
      guard let mesh = AlignmentPoints(mesh: face.landmarks) else {
        throw FaceRecognitionError(.describeFailed, "the face has no mesh to align it by")
      }
      points = mesh
    case .shapePredictor:
      points = try recognizer.alignmentPoints(in: image, box: face.box)
    }
    let aligned = chip ?? ImageBuffer(format: .rgb8)
    let descriptor = try recognizer.describe(image, at: points, chip: aligned)
    return DescribedFace(descriptor: descriptor, box: face.box, chip: FaceChip.jpeg(aligned))
  }

  /// The one face of the photo at `path`: an error when it has none or
  /// more than one (people in the background aside).
  public func describeSingleFace(at path: String, chip: ImageBuffer? = nil) throws(FaceRecognitionError)
    -> DescribedFace
  {
    let image = try read(path)
    let found = try faces(in: image)
    guard let face = found.first else {
      throw FaceRecognitionError(
        .noFace, "no face in the image", help: "give a photo of one face, frontal and well lit", file: path)
    }
    guard found.count == 1 else {
      throw FaceRecognitionError(
        .severalFaces, "\(found.count) faces in the image", help: "give a photo of one person only", file: path)
    }
    do {
      return try describe(face, in: image, chip: chip)
    } catch {
      var located = error
      located.file = path
      throw located
    }
  }
}
