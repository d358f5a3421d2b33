import Estimators
import FaceEstimation
import Measurements
import Settings

/// `face.motion`: cues that a face in front of the camera is a real head,
/// from how its measurements move between frames, with no model.
///
/// - `face.pose_jump` (true or false): the face moved further since the last
///   frame it was seen than a real head can in that time (its pose faster
///   than `motion.max_deg_per_s`, or its landmarks faster than
///   `motion.max_shift_per_s` face sizes a second): one photo swapped for
///   another, a cut in a replayed video. `face.pose_speed` (°/s) and
///   `face.shift_speed` (face sizes/s) are what it measured.
/// - `face.parallax`: how far the face's rigid points are from moving by one
///   homography, as a flat picture's do: the RMS residual over the distance
///   between the eyes, for each pair of frames between which the points
///   moved at least `parallax.min_motion` face sizes.
///
/// The face followed is the one nearest the face followed on the frame
/// before (the largest to begin with), so a second face coming into view
/// is not taken for a jump of the first. The frame interval is the input's
/// own (`t`), never shorter than `shortestInterval`: at a high frame rate
/// the landmarks' jitter would otherwise look like speed.
public final class FaceMotionEstimator: Estimator {
  public static let name = "face.motion"

  public static let measurementFields = [
    MeasurementField("face.pose_jump", .boolean), MeasurementField("face.pose_speed"),
    MeasurementField("face.shift_speed"), MeasurementField("face.parallax"),
  ]

  public static let settingDeclarations: [SettingDeclaration] = [
    .number(
      "motion.max_deg_per_s", default: MotionLimits.standard.degreesPerSecond, minimum: 10, maximum: 10_000,
      unit: "deg/s",
      doc: "Fastest a real head turns between two frames; faster is a jump (face.pose_jump): a photo swapped, a cut"),
    .number(
      "motion.max_shift_per_s", default: MotionLimits.standard.sizesPerSecond, minimum: 0.1, maximum: 1000,
      unit: "faces/s",
      doc: "Fastest a real face's landmarks move between two frames, in face sizes a second; faster is a jump"),
    .number(
      "parallax.min_motion", default: MotionLimits.standard.parallaxMotion, minimum: 0.001, maximum: 1,
      doc:
        "How far the face's points must change shape, in face sizes, before face.parallax is measured between two frames"
    ),
  ]

  /// The setting the steps read (not the estimator): changing it measures nothing anew.
  public static let stepSettingDeclarations: [SettingDeclaration] = [
    .number(
      "parallax.threshold", default: 0.04, minimum: 0, maximum: 1,
      doc:
        "face.parallax a real head shows while it turns (flat pictures stay below): what steps with parallax = true require"
    )
  ]

  /// The face mesh's points that move with the skull, not the expression:
  /// eye corners, nose bridge, tip and base, mouth corners, chin, cheeks, forehead.
  public static let rigidPoints = [33, 133, 362, 263, 168, 1, 2, 61, 291, 152, 234, 454, 10]
  /// The shortest frame interval speeds are taken over (30 frames a second).
  public static let shortestInterval = 1.0 / 30
  /// Frames further apart than this (the face lost meanwhile) are not a pair for parallax.
  public static let longestParallaxGap = 0.5

  public let descriptor: EstimatorDescriptor
  public let limits: MotionLimits
  private let face: any FaceMeasuring
  private var fit = PlanarFit(capacity: FaceMotionEstimator.rigidPoints.count)

  /// The face followed on the last frame it was seen, and the frame
  /// parallax is measured from.
  private var last = FacePoints(count: FaceMotionEstimator.rigidPoints.count)
  private var current = FacePoints(count: FaceMotionEstimator.rigidPoints.count)
  private var anchor = FacePoints(count: FaceMotionEstimator.rigidPoints.count)
  private var lastSeenIndex: Int64 = -2

  private var jumpNode = -1
  private var poseSpeedNode = -1
  private var shiftSpeedNode = -1
  private var parallaxNode = -1
  private var tables: [Int] = []

  public init(face: any FaceMeasuring, settings: ResolvedSettings?) {
    self.face = face
    limits = MotionLimits(settings)
    // Needs the face estimator's own fields, not the group `face`: the group takes in the
    // other estimators beside the face (descriptors, liveness), which would need this one back.
    // The pose is named so that the face estimator computes it for the jumps.
    descriptor = EstimatorDescriptor(
      name: Self.name,
      summary: "face.pose_jump and face.parallax: a face that moves faster than a head can, or as flat as a photo",
      provides: Self.measurementFields.map(\.path), fields: Self.measurementFields,
      needs: ["face.count", "face.yaw", "face.pitch", "face.roll"],
      image: .gray, workingWidth: 1)
  }

  public func prepare(schema: MeasurementSchema) throws(EstimatorError) {
    jumpNode = try schema.valueNode("face.pose_jump", estimator: Self.name)
    poseSpeedNode = try schema.valueNode("face.pose_speed", estimator: Self.name)
    shiftSpeedNode = try schema.valueNode("face.shift_speed", estimator: Self.name)
    parallaxNode = try schema.valueNode("face.parallax", estimator: Self.name)
    tables = schema.ancestors(of: jumpNode)
  }

  public func estimate(_ frame: DecodedFrame, into measurements: inout MeasurementFrame) {
    guard let followed = followedFace() else { return }
    guard current.take(face.faces[followed], t: frame.t) else { return }
    for table in tables { measurements[table] = .table }
    let consecutive = lastSeenIndex == frame.index - 1
    lastSeenIndex = frame.index
    var jump = false
    if last.isValid, frame.t > last.t {
      let interval = max(frame.t - last.t, Self.shortestInterval)
      let poseSpeed = current.poseChange(from: last).map { $0 / interval }
      let shiftSpeed = current.displacement(from: last, relative: true) / interval
      jump = shiftSpeed > limits.sizesPerSecond || (poseSpeed ?? 0) > limits.degreesPerSecond
      if let poseSpeed { measurements[poseSpeedNode] = .number(Self.rounded(poseSpeed)) }
      measurements[shiftSpeedNode] = .number(Self.rounded(shiftSpeed))
    }
    measurements[jumpNode] = .bool(jump)

    // Parallax between frames of one continuous view of the face: never
    // across a jump (two faces are not one plane) nor a long gap.
    if jump || !anchor.isValid || !consecutive && frame.t - last.t > Self.longestParallaxGap {
      anchor.copy(current)
    } else if current.displacement(from: anchor, relative: true) >= limits.parallaxMotion, current.eyeDistance > 0 {
      if let residual = current.planarResidual(from: anchor, fit: &fit) {
        measurements[parallaxNode] = .number(Self.rounded(residual / current.eyeDistance, places: 10_000))
      }
      anchor.copy(current)
    }
    swap(&last, &current)
  }

  /// The index in `face.faces` of the face nearest the one followed last,
  /// or the largest when none was.
  private func followedFace() -> Int? {
    let faces = face.faces
    guard !faces.isEmpty else { return nil }
    guard last.isValid, faces.count > 1 else { return 0 }
    var best = 0
    var bestDistance = Double.infinity
    for (index, candidate) in faces.enumerated() {
      let dx = candidate.box.x + candidate.box.width / 2 - last.centreX
      let dy = candidate.box.y + candidate.box.height / 2 - last.centreY
      let distance = dx * dx + dy * dy
      if distance < bestDistance {
        bestDistance = distance
        best = index
      }
    }
    return best
  }

  private static func rounded(_ value: Double, places: Double = 1000) -> Double {
    (value * places).rounded() / places
  }
}

/// The limits of a real head's motion.
public struct MotionLimits: Sendable, Equatable {
  public var degreesPerSecond: Double
  public var sizesPerSecond: Double
  public var parallaxMotion: Double

  /// The defaults (docs/liveness.md says how they were measured).
  public static let standard = MotionLimits(degreesPerSecond: 250, sizesPerSecond: 4, parallaxMotion: 0.03)

  public init(degreesPerSecond: Double, sizesPerSecond: Double, parallaxMotion: Double) {
    self.degreesPerSecond = degreesPerSecond
    self.sizesPerSecond = sizesPerSecond
    self.parallaxMotion = parallaxMotion
  }

  public init(_ settings: ResolvedSettings?) {
    let standard = Self.standard
    degreesPerSecond = settings?.number("motion.max_deg_per_s") ?? standard.degreesPerSecond
    sizesPerSecond = settings?.number("motion.max_shift_per_s") ?? standard.sizesPerSecond
    parallaxMotion = settings?.number("parallax.min_motion") ?? standard.parallaxMotion
  }
}

/// One face's rigid points (x, y in pixels of the frame as captured), pose
/// and size at one time, in storage kept from frame to frame.
struct FacePoints {
  var points: [Double]
  var t = 0.0
  var isValid = false
  var pose: HeadPose?
  /// The larger side of the face box, in pixels.
  var size = 0.0
  var eyeDistance = 0.0
  var centreX = 0.0
  var centreY = 0.0

  init(count: Int) {
    points = [Double](repeating: 0, count: count * 2)
  }

  var count: Int { points.count / 2 }

  /// Takes `face`'s points; false when it has no full mesh.
  mutating func take(_ face: FaceMeasurement, t: Double) -> Bool {
    let mesh = face.landmarks
    guard mesh.count >= FaceMesh.pointCount, face.box.width > 0 else { return false }
    for (slot, index) in FaceMotionEstimator.rigidPoints.enumerated() {
      points[slot * 2] = Double(mesh[index].x)
      points[slot * 2 + 1] = Double(mesh[index].y)
    }
    self.t = t
    pose = face.pose
    size = max(face.box.width, face.box.height)
    eyeDistance = face.eyeDistance ?? 0
    centreX = face.box.x + face.box.width / 2
    centreY = face.box.y + face.box.height / 2
    isValid = true
    return true
  }

  mutating func copy(_ other: FacePoints) {
    for index in points.indices { points[index] = other.points[index] }
    t = other.t
    isValid = other.isValid
    pose = other.pose
    size = other.size
    eyeDistance = other.eyeDistance
    centreX = other.centreX
    centreY = other.centreY
  }

  /// The mean distance the points moved since `earlier`, in face sizes;
  /// `relative`: about their centre (the face's shape, as a turn or a
  /// swap changes it, not where it is).
  func displacement(from earlier: FacePoints, relative: Bool = false) -> Double {
    var shiftX = 0.0
    var shiftY = 0.0
    if relative {
      for index in 0..<count {
        shiftX += points[index * 2] - earlier.points[index * 2]
        shiftY += points[index * 2 + 1] - earlier.points[index * 2 + 1]
      }
      shiftX /= Double(count)
      shiftY /= Double(count)
    }
    var sum = 0.0
    for index in 0..<count {
      let dx = points[index * 2] - earlier.points[index * 2] - shiftX
      let dy = points[index * 2 + 1] - earlier.points[index * 2 + 1] - shiftY
      sum += (dx * dx + dy * dy).squareRoot()
    }
    let scale = (size + earlier.size) / 2
    return scale > 0 ? sum / Double(count) / scale : 0
  }

  /// How far the head turned since `earlier`, in degrees (the three
  /// angles' changes as one), when both poses are known.
  func poseChange(from earlier: FacePoints) -> Double? {
    guard let pose, let before = earlier.pose else { return nil }
    let yaw = pose.yaw - before.yaw
    let pitch = pose.pitch - before.pitch
    let roll = pose.roll - before.roll
    return (yaw * yaw + pitch * pitch + roll * roll).squareRoot()
  }

  /// The RMS distance, in pixels, of these points from `earlier`'s mapped
  /// by the homography that fits them best.
  func planarResidual(from earlier: FacePoints, fit: inout PlanarFit) -> Double? {
    earlier.points.withUnsafeBufferPointer { source in
      points.withUnsafeBufferPointer { target in
        fit.residual(from: source, to: target, count: count)
      }
    }
  }
}
