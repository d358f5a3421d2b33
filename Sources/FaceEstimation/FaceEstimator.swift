import Estimators
import Foundation
import Imaging
import JSONCore
import Logging
import Measurements

/// What the face estimator measured about one face, in the pixels of the
/// frame as captured (whatever the decode scale).
public struct FaceMeasurement: Sendable {
  public var box: FaceBox
  /// The mesh points, in source-frame pixels (x right, y down; z in x's scale).
  public var landmarks: [SIMD3<Float>]
  public var pose: HeadPose?
  /// Blendshape eyeBlinkLeft/Right in [0, 1]: 1 is closed. Left is the
  /// person's own left eye (after `mirror`).
  public var blinkLeft: Double?
  public var blinkRight: Double?
  /// Eye aspect ratios from the mesh (same naming).
  public var eyeAspectRatioLeft: Double?
  public var eyeAspectRatioRight: Double?
  /// The larger side of the box over the shorter side of the frame.
  public var size: Double
  /// The box's distance to the nearest frame edge over the shorter side of
  /// the frame; negative when the face runs past the edge.
  public var borderDistance: Double
  /// Between the eye centres, in pixels.
  public var eyeDistance: Double?
  /// (mouthSmileLeft + mouthSmileRight) / 2 and jawOpen, in [0, 1].
  public var smile: Double?
  public var mouthOpen: Double?
  /// The quality scores (1 best) over the face box, as the frame-wide
  /// quality estimators compute them.
  public var quality: [QualityKind: Double]
}

/// What an estimator beside the face estimator reads: the faces of the
/// frame measured last, largest first. The face estimator is the one;
/// a benchmark replays recorded faces through another.
public protocol FaceMeasuring: AnyObject {
  var faces: [FaceMeasurement] { get }
}

/// Settings of the face estimator that do not belong to the backend.
public struct FaceEstimatorOptions: Sendable, Equatable {
  public var backend: MediaPipeFaceOptions
  /// The frames are a mirror image (a selfie preview): flip yaw and roll
  /// and swap the left and right eyes, so that the values stay in the
  /// person's terms.
  public var mirror = false
  /// Measure frames at the size captured. By default a run scales larger
  /// frames to at least `workingWidth` wide, which moved yaw by 0.06–0.08°
  /// and the eye aspect ratio by 0.003–0.004 on average at 720p and 1080p
  /// (`scripts/bench floor`), for about 7 % less time a run at 1080p.
  public var fullResolution = false
  /// The narrowest frame the face model is given when it may be scaled.
  public static let workingWidth = 640

  public init(backend: MediaPipeFaceOptions, mirror: Bool = false) {
    self.backend = backend
    self.mirror = mirror
  }
}

/// The parts of the face estimator's work beyond the mesh (box, eye aspect
/// ratios, size, eye distance), each left out when the run reads none of
/// its fields.
public struct FaceOutputs: OptionSet, Sendable {
  public let rawValue: Int
  public init(rawValue: Int) { self.rawValue = rawValue }

  /// `blink_left`, `blink_right`, `smile`, `mouth_open`: MediaPipe's blendshape model.
  public static let blendshapes = FaceOutputs(rawValue: 1)
  /// `yaw`, `pitch`, `roll`: the facial transformation matrix.
  public static let pose = FaceOutputs(rawValue: 2)
  /// `quality.*`: the quality scores over the face box.
  public static let quality = FaceOutputs(rawValue: 4)
  public static let all: FaceOutputs = [.blendshapes, .pose, .quality]

  /// The parts a run that reads `reads` needs (nil: it may read anything).
  /// A group (`face`, `face.faces`, `face.faces.2`) needs every part.
  public init(reads: [String]?) {
    guard let reads else {
      self = .all
      return
    }
    self = []
    for path in reads {
      guard let field = FaceOutputs.field(of: path) else { continue }
      switch field.split(separator: ".").first.map(String.init) ?? "" {
      case "": formUnion(.all)
      case "blink_left", "blink_right", "smile", "mouth_open": insert(.blendshapes)
      case "yaw", "pitch", "roll": insert(.pose)
      case "quality": insert(.quality)
      default: break
      }
    }
  }

  /// The face's own field a path names ("yaw" for `face.yaw` and
  /// `face.faces.2.yaw`), "" for a whole face or all of them, nil for a
  /// path outside `face`.
  private static func field(of path: String) -> String? {
    let parts = path.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.first == "face" else { return nil }
    guard parts.count > 1 else { return "" }
    guard parts[1] == "faces" else { return parts.dropFirst().joined(separator: ".") }
    return parts.count > 3 ? parts.dropFirst(3).joined(separator: ".") : ""
  }
}

/// The face estimator: finds faces with a `FaceBackend` and writes
/// `face.*` for the largest face and `face.faces.<n>.*` for each face,
/// largest first (docs/face.md lists them). The backend starts in
/// `prepare`, so listing the estimator costs nothing and a missing
/// library is an error of the runs that need faces only.
public final class FaceEstimator: Estimator, FaceMeasuring {
  public static let name = "face.mediapipe"
  /// The fields written for each face, under `face.` and `face.faces.<n>.`.
  public static let fields =
    [
      "box.x", "box.y", "box.w", "box.h", "yaw", "pitch", "roll", "blink_left", "blink_right", "ear_left",
      "ear_right", "size", "border_distance", "eye_distance", "smile", "mouth_open",
    ] + QualityKind.allCases.map { "quality." + $0.rawValue }

  /// What it writes, with types: `face.count`, then `fields` for the
  /// largest face and for each face by position.
  public static let measurementFields =
    [MeasurementField("face.count", .integer)] + fields.map { MeasurementField("face." + $0) }
    + fields.map { MeasurementField("face.faces.#." + $0) }

  public let descriptor: EstimatorDescriptor
  public let options: FaceEstimatorOptions
  /// The faces of the last frame, largest first (empty before the first).
  public private(set) var faces: [FaceMeasurement] = []
  /// What it computes besides the mesh: all of it until a run says what it reads.
  public private(set) var outputs = FaceOutputs.all

  private let makeBackend: (MediaPipeFaceOptions) throws(FaceBackendError) -> any FaceBackend
  private var backend: (any FaceBackend)?
  /// What the backend was started to give.
  private var backendOutputs: FaceOutputs = []
  private let logger: Logger
  private var detections = FaceDetections()
  private let grayFallback = ImageBuffer(format: .rgb8)
  private let faceGray = ImageBuffer(format: .gray8)
  private var failures = 0

  private struct Nodes {
    var values: [Int] = []  // in `fields` order
    var tables: [Int] = []  // every table above them
  }
  private var countNode = -1
  private var countAncestors: [Int] = []
  private var primary = Nodes()
  private var perFace: [Nodes] = []

  /// The MediaPipe backend with `options`.
  public convenience init(options: FaceEstimatorOptions, logger: Logger = Logger(label: "workbench.face")) {
    self.init(options: options, logger: logger) {
      (backendOptions: MediaPipeFaceOptions) throws(FaceBackendError) -> any FaceBackend in
      try MediaPipeFaceBackend(options: backendOptions, logger: logger)
    }
  }

  /// Another backend, made when the run starts.
  public convenience init(
    options: FaceEstimatorOptions, logger: Logger = Logger(label: "workbench.face"),
    backend: @escaping () throws(FaceBackendError) -> any FaceBackend
  ) {
    self.init(options: options, logger: logger) { (_: MediaPipeFaceOptions) throws(FaceBackendError) in
      try backend()
    }
  }

  /// A backend made from the options of what the run reads (`outputs`).
  init(
    options: FaceEstimatorOptions, logger: Logger,
    backendFor: @escaping (MediaPipeFaceOptions) throws(FaceBackendError) -> any FaceBackend
  ) {
    self.options = options
    self.logger = logger
    makeBackend = backendFor
    descriptor = EstimatorDescriptor(
      name: FaceEstimator.name,
      summary: "faces (MediaPipe Face Landmarker): box, pose, blinks, eye aspect ratio, size, quality",
      provides: ["face"], fields: FaceEstimator.measurementFields, image: .color,
      workingWidth: options.fullResolution ? nil : FaceEstimatorOptions.workingWidth)
  }

  public func prepare(schema: MeasurementSchema) throws(EstimatorError) {
    // The quality over the box is the estimator's own work, not the backend's.
    if backend == nil || !backendOutputs.isSuperset(of: outputs.subtracting(.quality)) {
      var backendOptions = options.backend
      backendOptions.blendshapes = outputs.contains(.blendshapes)
      backendOptions.transformationMatrix = outputs.contains(.pose)
      do {
        backend = nil
        backend = try makeBackend(backendOptions)
        backendOutputs = outputs
      } catch {
        throw EstimatorError(estimator: descriptor.name, error.message, help: error.help)
      }
    }
    countNode = try schema.valueNode("face.count", estimator: descriptor.name)
    countAncestors = schema.ancestors(of: countNode)
    primary = try nodes(prefix: "face.", schema: schema)
    perFace = []
    for index in 1...options.backend.maxFaces {
      perFace.append(try nodes(prefix: "face.faces.\(index).", schema: schema))
    }
  }

  private func nodes(prefix: String, schema: MeasurementSchema) throws(EstimatorError) -> Nodes {
    var nodes = Nodes()
    var tables = Set<Int>()
    for field in FaceEstimator.fields {
      let node = try schema.valueNode(prefix + field, estimator: descriptor.name)
      nodes.values.append(node)
      tables.formUnion(schema.ancestors(of: node))
    }
    nodes.tables = tables.sorted()
    return nodes
  }

  public func estimate(_ frame: DecodedFrame, into measurements: inout MeasurementFrame) {
    guard let backend else { return }
    let image: ImageBuffer
    if frame.hasColor && frame.color.width > 0 {
      image = frame.color
    } else {
      // Without colour (a run that did not decode it), gray as RGB still finds faces.
      do { try ImageConversion.gray8ToRGB8(frame.gray, into: grayFallback) } catch { return }
      image = grayFallback
    }
    guard image.width > 0, image.height > 0 else { return }
    let milliseconds = Int64((frame.t * 1000).rounded())
    do {
      try backend.detect(image, timestampMilliseconds: milliseconds, into: &detections)
    } catch {
      failures += 1
      if failures == 1 || failures.isMultiple(of: 100) {
        logger.warning("face: \(error.message) (frame \(frame.index); \(failures) so far)")
      }
      faces = []
      return
    }
    let sourceWidth = frame.sourceWidth > 0 ? frame.sourceWidth : image.width
    let sourceHeight = frame.sourceHeight > 0 ? frame.sourceHeight : image.height
    measure(
      detections, imageWidth: image.width, imageHeight: image.height, sourceWidth: sourceWidth,
      sourceHeight: sourceHeight, gray: frame.gray)
    write(into: &measurements)
  }

  /// Updates `faces` from the backend's detections, in place: a run whose
  /// frames hold as many faces as the one before allocates nothing here.
  func measure(
    _ detections: FaceDetections, imageWidth: Int, imageHeight: Int, sourceWidth: Int, sourceHeight: Int,
    gray: ImageBuffer
  ) {
    let scaleX = Double(sourceWidth) / Double(imageWidth)
    let scaleY = Double(sourceHeight) / Double(imageHeight)
    let scale = SIMD3<Float>(Float(scaleX), Float(scaleY), Float(scaleX))
    let shorter = Double(max(1, min(sourceWidth, sourceHeight)))
    if faces.count > detections.count { faces.removeLast(faces.count - detections.count) }
    for slot in 0..<detections.count {
      let face = detections.faces[slot]
      if slot == faces.count {
        faces.append(
          FaceMeasurement(
            box: FaceBox(x: 0, y: 0, width: 0, height: 0), landmarks: [], size: 0, borderDistance: 0, quality: [:]))
      }
      update(
        &faces[slot], from: face, scale: scale, sourceWidth: sourceWidth, sourceHeight: sourceHeight, shorter: shorter)
      if outputs.contains(.quality) {
        quality(
          into: &faces[slot].quality, box: faces[slot].box, sourceWidth: sourceWidth, sourceHeight: sourceHeight,
          gray: gray)
      } else {
        faces[slot].quality.removeAll(keepingCapacity: true)
      }
    }
    // Largest first: the most prominent face is face.faces.1 and face.*.
    if faces.count > 1 { faces.sort { $0.box.area > $1.box.area } }
  }

  /// One face's measurements from its observation, into the storage it had.
  private func update(
    _ measurement: inout FaceMeasurement, from face: FaceObservation, scale: SIMD3<Float>, sourceWidth: Int,
    sourceHeight: Int, shorter: Double
  ) {
    measurement.landmarks.assign(face.landmarks, scaledBy: scale)
    let box = FaceGeometry.box(of: measurement.landmarks)
    measurement.box = box
    measurement.size = max(box.width, box.height) / shorter
    measurement.borderDistance =
      min(box.x, box.y, Double(sourceWidth) - (box.x + box.width), Double(sourceHeight) - (box.y + box.height))
      / shorter
    var pose = FaceGeometry.pose(fromTransform: face.transform)
    var blinkLeft = face.blendshape(.eyeBlinkLeft).map(Double.init)
    var blinkRight = face.blendshape(.eyeBlinkRight).map(Double.init)
    var earLeft = FaceGeometry.eyeAspectRatio(measurement.landmarks, FaceMesh.leftEye)
    var earRight = FaceGeometry.eyeAspectRatio(measurement.landmarks, FaceMesh.rightEye)
    if options.mirror {
      pose = pose?.mirrored
      swap(&blinkLeft, &blinkRight)
      swap(&earLeft, &earRight)
    }
    measurement.pose = pose
    measurement.blinkLeft = blinkLeft
    measurement.blinkRight = blinkRight
    measurement.eyeAspectRatioLeft = earLeft
    measurement.eyeAspectRatioRight = earRight
    measurement.eyeDistance = eyeDistance(measurement.landmarks)
    measurement.smile = face.blendshape(.mouthSmileLeft).flatMap { left in
      face.blendshape(.mouthSmileRight).map { Double(left + $0) / 2 }
    }
    measurement.mouthOpen = face.blendshape(.jawOpen).map(Double.init)
  }

  private func eyeDistance(_ landmarks: [SIMD3<Float>]) -> Double? {
    guard landmarks.count >= FaceMesh.pointCount else { return nil }
    let right = (landmarks[33] + landmarks[133]) / 2
    let left = (landmarks[362] + landmarks[263]) / 2
    let d = right - left
    return Double((d.x * d.x + d.y * d.y).squareRoot())
  }

  private func quality(
    into scores: inout [QualityKind: Double], box: FaceBox, sourceWidth: Int, sourceHeight: Int, gray: ImageBuffer
  ) {
    scores.removeAll(keepingCapacity: true)
    guard gray.width > 2, gray.height > 2 else { return }
    let inGray = box.scaled(x: Double(gray.width) / Double(sourceWidth), y: Double(gray.height) / Double(sourceHeight))
    let region = RegionOfInterest(
      x: Int(inGray.x.rounded(.down)), y: Int(inGray.y.rounded(.down)), width: Int(inGray.width.rounded(.up)),
      height: Int(inGray.height.rounded(.up))
    ).clamped(to: gray)
    guard region.width > 2, region.height > 2,
      (try? ImageConversion.crop(gray, to: region, into: faceGray)) != nil
    else { return }
    for kind in QualityKind.allCases { scores[kind] = QualityEstimator.score(kind, faceGray) }
  }

  private func write(into measurements: inout MeasurementFrame) {
    for table in countAncestors { measurements[table] = .table }
    measurements[countNode] = .integer(Int64(faces.count))
    guard let first = faces.first else { return }
    write(first, primary, into: &measurements)
    for (face, nodes) in zip(faces, perFace) { write(face, nodes, into: &measurements) }
  }

  private func write(_ face: FaceMeasurement, _ nodes: Nodes, into measurements: inout MeasurementFrame) {
    for table in nodes.tables { measurements[table] = .table }
    // In `fields` order, one by one: an array of the values would be allocated every frame.
    var field = 0
    func put(_ value: Double?) {
      if let value, value.isFinite { measurements[nodes.values[field]] = .number((value * 1000).rounded() / 1000) }
      field += 1
    }
    put(face.box.x)
    put(face.box.y)
    put(face.box.width)
    put(face.box.height)
    put(face.pose?.yaw)
    put(face.pose?.pitch)
    put(face.pose?.roll)
    put(face.blinkLeft)
    put(face.blinkRight)
    put(face.eyeAspectRatioLeft)
    put(face.eyeAspectRatioRight)
    put(face.size)
    put(face.borderDistance)
    put(face.eyeDistance)
    put(face.smile)
    put(face.mouthOpen)
    for kind in QualityKind.allCases { put(face.quality[kind]) }
  }
}

extension FaceEstimator: SelectiveEstimator {
  public func select(reads: [String]?) { outputs = FaceOutputs(reads: reads) }
}

extension FaceEstimator: OverlayDrawing {
  /// The face mesh of each face, to a tenth of a pixel.
  public func overlay() -> JSONObject {
    guard !faces.isEmpty else { return JSONObject() }
    let meshes: [JSONValue] = faces.map { face in
      var points: [JSONValue] = []
      points.reserveCapacity(face.landmarks.count * 2)
      for point in face.landmarks {
        points.append(.number((Double(point.x) * 10).rounded() / 10))
        points.append(.number((Double(point.y) * 10).rounded() / 10))
      }
      return .array(points)
    }
    return JSONObject([("face.landmarks", .array(meshes))])
  }
}
