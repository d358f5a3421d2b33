import CMediaPipe
import Foundation
import Imaging
import Logging

/// How the MediaPipe Face Landmarker runs.
public struct MediaPipeFaceOptions: Sendable, Equatable {
  /// libmediapipe.so (the `mediapipe` 1.2.2 wheel's).
  public var libraryPath: String
  /// face_landmarker.task.
  public var modelPath: String
  /// The most faces reported per frame.
  public var maxFaces = 5
  public var minDetectionConfidence: Float = 0.5
  public var minPresenceConfidence: Float = 0.5
  public var minTrackingConfidence: Float = 0.5
  /// Also search an n×n grid of overlapping tiles (n = 2 or 3) for faces
  /// too small for the full-frame detector (about under an eighth of the
  /// frame's width); 0 for none. Each tile costs about one more detection.
  public var searchTiles = 0
  /// Follow faces from frame to frame (MediaPipe's video mode, the
  /// timestamps must grow); false to look at every image on its own (image
  /// mode, timestamps ignored), for images that are not a video's frames.
  public var tracksFaces = true
  /// Run the blendshape model (blinks, smile, jaw); about 0.6 ms a face.
  public var blendshapes = true
  /// Give the facial transformation matrix (the head's pose).
  public var transformationMatrix = true

  public init(libraryPath: String, modelPath: String) {
    self.libraryPath = libraryPath
    self.modelPath = modelPath
  }

  func validate() throws(FaceBackendError) {
    guard (1...20).contains(maxFaces) else {
      throw FaceBackendError(.invalidOption, "the most faces per frame must be 1 to 20, not \(maxFaces)")
    }
    for (name, value) in [
      ("detection", minDetectionConfidence), ("presence", minPresenceConfidence), ("tracking", minTrackingConfidence),
    ] where !(0...1).contains(value) {
      throw FaceBackendError(.invalidOption, "the minimum \(name) confidence must be 0 to 1, not \(value)")
    }
    guard searchTiles == 0 || (2...3).contains(searchTiles) else {
      throw FaceBackendError(.invalidOption, "the tile search grid must be 0 (off), 2 or 3, not \(searchTiles)")
    }
  }
}

/// The Face Landmarker of the MediaPipe Tasks C API, loaded at run time:
/// in video mode (it tracks faces between frames), or in image mode when
/// `tracksFaces` is off.
public final class MediaPipeFaceBackend: FaceBackend {
  public let name = "mediapipe"
  public let options: MediaPipeFaceOptions
  private let library: MediaPipeLibrary
  private let landmarker: OpaquePointer
  /// The image-mode landmarker of the tile search (nil when off).
  private let tileLandmarker: OpaquePointer?
  private var lastTimestamp = Int64.min
  private let tile = ImageBuffer(format: .rgb8)
  private var tileFaces = FaceDetections()
  private let logger: Logger

  /// Loads the library (once per process) and the model. Throws when
  /// either is missing or unusable, saying how to install them.
  public init(options: MediaPipeFaceOptions, logger: Logger = Logger(label: "workbench.face")) throws(FaceBackendError)
  {
    try options.validate()
    self.options = options
    self.logger = logger
    library = try MediaPipeLibrary.load(path: options.libraryPath, logger: logger)
    guard FileManager.default.fileExists(atPath: options.modelPath) else {
      throw FaceBackendError(
        .modelUnavailable, "the face model is not installed: there is no \(options.modelPath)",
        help: "run scripts/install-face-backend (or point WORKBENCH_FACE_MODEL or the face.model setting at it)")
    }
    landmarker = try MediaPipeFaceBackend.create(
      library, options, mode: options.tracksFaces ? WB_MP_RUNNING_MODE_VIDEO : WB_MP_RUNNING_MODE_IMAGE)
    if options.searchTiles > 0 {
      do {
        tileLandmarker = try MediaPipeFaceBackend.create(library, options, mode: WB_MP_RUNNING_MODE_IMAGE)
      } catch {
        MediaPipeFaceBackend.close(landmarker, library)
        throw error
      }
    } else {
      tileLandmarker = nil
    }
  }

  deinit {
    MediaPipeFaceBackend.close(landmarker, library)
    if let tileLandmarker { MediaPipeFaceBackend.close(tileLandmarker, library) }
  }

  private static func close(_ landmarker: OpaquePointer, _ library: MediaPipeLibrary) {
    var message: UnsafeMutablePointer<CChar>?
    let status = library.api.face_landmarker_close?(landmarker, &message) ?? 0
    if status != WB_MP_OK { _ = library.takeError(message, status: status) }
  }

  private static func create(_ library: MediaPipeLibrary, _ options: MediaPipeFaceOptions, mode: Int32)
    throws(FaceBackendError) -> OpaquePointer
  {
    guard let create = library.api.face_landmarker_create else {
      throw FaceBackendError(.libraryUnavailable, "the MediaPipe library has no MpFaceLandmarkerCreate")
    }
    let outcome: (status: Int32, landmarker: OpaquePointer?, error: String?) = try library.starting {
      () throws(FaceBackendError) in
      options.modelPath.withCString { modelPath in
        var settings = wb_mp_face_landmarker_options()
        settings.base_options.model_asset_path = modelPath
        settings.base_options.file_descriptor = -1
        settings.base_options.delegate = WB_MP_DELEGATE_CPU
        settings.running_mode = mode
        settings.num_faces = Int32(options.maxFaces)
        settings.min_face_detection_confidence = options.minDetectionConfidence
        settings.min_face_presence_confidence = options.minPresenceConfidence
        settings.min_tracking_confidence = options.minTrackingConfidence
        settings.output_face_blendshapes = options.blendshapes
        settings.output_facial_transformation_matrixes = options.transformationMatrix
        var landmarker: OpaquePointer?
        var message: UnsafeMutablePointer<CChar>?
        let status = create(&settings, &landmarker, &message)
        let error = status == WB_MP_OK ? nil : library.takeError(message, status: status)
        return (status, landmarker, error)
      }
    }
    guard outcome.status == WB_MP_OK, let landmarker = outcome.landmarker else {
      throw FaceBackendError(
        .modelUnavailable,
        "MediaPipe cannot start the Face Landmarker with \(options.modelPath): \(outcome.error ?? "no landmarker")",
        help: "the model must be face_landmarker.task (scripts/install-face-backend installs it)")
    }
    return landmarker
  }

  public func detect(_ image: ImageBuffer, timestampMilliseconds: Int64, into faces: inout FaceDetections)
    throws(FaceBackendError)
  {
    faces.resize(to: 0)
    faces.imageWidth = image.width
    faces.imageHeight = image.height
    guard image.format == .rgb8, image.width > 0, image.height > 0 else {
      throw FaceBackendError(.detectionFailed, "the face backend needs an rgb8 image, got \(image.format)")
    }
    if options.tracksFaces {
      // Video mode refuses a timestamp that does not grow.
      let timestamp = max(timestampMilliseconds, lastTimestamp == .min ? timestampMilliseconds : lastTimestamp + 1)
      lastTimestamp = timestamp
      try run(landmarker, on: image, timestamp: timestamp, into: &faces, offsetX: 0, offsetY: 0)
    } else {
      try run(landmarker, on: image, timestamp: nil, into: &faces, offsetX: 0, offsetY: 0)
    }
    if let tileLandmarker { try searchTiles(tileLandmarker, image, into: &faces) }
  }

  /// One call of the library on `image`; faces are appended to `faces`,
  /// shifted by the offset (for tiles).
  private func run(
    _ landmarker: OpaquePointer, on image: ImageBuffer, timestamp: Int64?, into faces: inout FaceDetections,
    offsetX: Int, offsetY: Int
  ) throws(FaceBackendError) {
    let api = library.api
    var mpImage: OpaquePointer?
    var message: UnsafeMutablePointer<CChar>?
    var status = api.image_create_from_uint8_data!(
      WB_MP_IMAGE_FORMAT_SRGB, Int32(image.width), Int32(image.height), image.pixels, Int32(image.byteCount),
      &mpImage, &message)
    guard status == WB_MP_OK, let mpImage else {
      throw FaceBackendError(
        .detectionFailed, "MediaPipe cannot take the frame: \(library.takeError(message, status: status))")
    }
    defer { api.image_free!(mpImage) }
    var result = wb_mp_face_landmarker_result()
    if let timestamp {
      status = api.face_landmarker_detect_for_video!(landmarker, mpImage, nil, timestamp, &result, &message)
    } else {
      status = api.face_landmarker_detect_image!(landmarker, mpImage, nil, &result, &message)
    }
    guard status == WB_MP_OK else {
      throw FaceBackendError(
        .detectionFailed, "MediaPipe failed on the frame: \(library.takeError(message, status: status))")
    }
    defer { api.face_landmarker_close_result!(&result) }
    let width = Float(image.width)
    let height = Float(image.height)
    for index in 0..<Int(result.face_landmarks_count) {
      let points = result.face_landmarks[index]
      guard points.landmarks_count > 0 else { continue }
      let slot = faces.count
      faces.resize(to: slot + 1)
      let x0 = Float(offsetX)
      let y0 = Float(offsetY)
      faces.faces[slot].landmarks.removeAll(keepingCapacity: true)
      for point in UnsafeBufferPointer(start: points.landmarks, count: Int(points.landmarks_count)) {
        faces.faces[slot].landmarks.append(SIMD3(x0 + point.x * width, y0 + point.y * height, point.z * width))
      }
      faces.faces[slot].blendshapes.removeAll(keepingCapacity: true)
      if index < Int(result.face_blendshapes_count) {
        let categories = result.face_blendshapes[index]
        let shapes = FaceBlendshape.allCases.count
        faces.faces[slot].blendshapes.append(contentsOf: repeatElement(0, count: shapes))
        for category in UnsafeBufferPointer(start: categories.categories, count: Int(categories.categories_count))
        where category.index >= 0 && Int(category.index) < shapes {
          faces.faces[slot].blendshapes[Int(category.index)] = category.score
        }
      }
      faces.faces[slot].transform.removeAll(keepingCapacity: true)
      if index < Int(result.facial_transformation_matrixes_count) {
        let matrix = result.facial_transformation_matrixes[index]
        if matrix.rows == 4, matrix.cols == 4, let data = matrix.data {
          faces.faces[slot].transform.append(contentsOf: UnsafeBufferPointer(start: data, count: 16))
        }
      }
    }
  }

  /// Faces the full-frame pass missed, from an n×n grid of tiles that
  /// overlap by a fifth of their size; a tile's face that overlaps one
  /// already found is the same face.
  private func searchTiles(_ landmarker: OpaquePointer, _ image: ImageBuffer, into faces: inout FaceDetections)
    throws(FaceBackendError)
  {
    let grid = options.searchTiles
    let tileWidth = min(image.width, Int(Double(image.width) / Double(grid) * 1.2))
    let tileHeight = min(image.height, Int(Double(image.height) / Double(grid) * 1.2))
    var known = faces.valid.map { FaceGeometry.box(of: $0.landmarks) }
    for row in 0..<grid {
      for column in 0..<grid {
        guard faces.count < options.maxFaces else { return }
        let x = grid == 1 ? 0 : (image.width - tileWidth) * column / (grid - 1)
        let y = grid == 1 ? 0 : (image.height - tileHeight) * row / (grid - 1)
        do {
          try ImageConversion.crop(image, x: x, y: y, width: tileWidth, height: tileHeight, into: tile)
        } catch {
          throw FaceBackendError(.detectionFailed, "cannot cut a tile of the frame: \(error)")
        }
        tileFaces.resize(to: 0)
        try run(landmarker, on: tile, timestamp: nil, into: &tileFaces, offsetX: x, offsetY: y)
        for face in tileFaces.valid where faces.count < options.maxFaces {
          let box = FaceGeometry.box(of: face.landmarks)
          guard !known.contains(where: { $0.overlap(box) > 0.3 }) else { continue }
          faces.resize(to: faces.count + 1)
          faces.faces[faces.count - 1] = face
          known.append(box)
        }
      }
    }
  }
}
