import CardGeometry
import Estimators
import Foundation
import Imaging
import JSONCore
import Measurements

/// What the card estimator is told (docs/card.md).
public struct CardEstimatorSettings: Sendable, Equatable {
  /// The camera's focal length in pixels of the frame as captured; nil when
  /// unknown: then the frame's (`DecodedFrame.focalLength`, from the
  /// source), else estimated from the card once it has been tilted
  /// (`calibratesFocalLength`), else a 60° horizontal field of view.
  public var focalLength: Double?
  /// The camera's horizontal field of view, degrees, when the focal length
  /// is not given: the same for every frame size.
  public var horizontalFieldOfView: Double?
  /// Estimate an unknown focal length from the card (`FocalLengthCalibration`).
  public var calibratesFocalLength: Bool
  /// The frames are mirror images (a "selfie" preview): corners and
  /// tilt_y (and roll) are given for the card as it really is.
  public var mirror: Bool
  /// Width of the image the detector searches, pixels.
  public var workingWidth: Int
  /// The narrowest card looked for, as a share of the frame width.
  public var minimumWidthRatio: Double
  /// Luma at and above which a card pixel counts as glare.
  public var glareLevel: UInt8
  /// Where the portrait is, for `cropPortrait`.
  public var layout: CardLayout
  /// Size of the rectified card image.
  public var rectifiedWidth: Int
  public var rectifiedHeight: Int
  /// Ask for colour frames and look for steps of colour as well as of
  /// brightness (a card that differs from the table mostly in hue).
  public var useColor: Bool
  /// Follow the card by what is printed on it where its borders cannot be
  /// found or have slipped onto another line (`CardAppearance`).
  public var followsFace: Bool

  public init(
    focalLength: Double? = nil, horizontalFieldOfView: Double? = nil, mirror: Bool = false, workingWidth: Int = 320,
    minimumWidthRatio: Double = 0.12,
    glareLevel: UInt8 = 250, layout: CardLayout = .hongKongIdentityCard, rectifiedWidth: Int = 428,
    rectifiedHeight: Int = 270, useColor: Bool = true, followsFace: Bool = true, calibratesFocalLength: Bool = true
  ) {
    self.calibratesFocalLength = calibratesFocalLength
    self.horizontalFieldOfView = horizontalFieldOfView
    self.useColor = useColor
    self.followsFace = followsFace
    self.focalLength = focalLength
    self.mirror = mirror
    self.workingWidth = workingWidth
    self.minimumWidthRatio = minimumWidthRatio
    self.glareLevel = glareLevel
    self.layout = layout
    self.rectifiedWidth = rectifiedWidth
    self.rectifiedHeight = rectifiedHeight
  }
}

/// The card in one frame.
public struct CardObservation: Sendable, Equatable {
  /// Top-left, top-right, bottom-right, bottom-left as printed, in pixels
  /// of the frame as captured (pixel centres at whole numbers).
  public var corners: [Point2]
  public var pose: CardPose
  /// Mean length of the top and bottom edges over the frame width: the
  /// card's size as projected, which shrinks as it is tilted.
  public var widthRatio: Double
  /// The card's width over the frame width were it facing the camera at
  /// the same distance: its size with the tilt taken out, which turning the
  /// card does not change (and a wrong focal length hardly does).
  public var sizeRatio: Double
  /// The focal length the pose was computed with, pixels of the frame as
  /// captured, and where it came from.
  public var focalLength: Double
  public var focalSource: FocalSource
  /// Degrees per second, smoothed; 0 on the first frame of a track.
  public var speed: Double
  /// Share of the card's pixels at or above the glare level.
  public var glare: Double
  /// 1 sharp … 0 smeared (docs/card.md).
  public var blur: Double
  public var confidence: Double
  /// Whether it was found by following the previous frame's card.
  public var tracked: Bool
}

/// Where the focal length of a card's pose came from.
public enum FocalSource: String, Sendable {
  /// `CardEstimatorSettings.focalLength`.
  case setting
  /// The source of the frames (`DecodedFrame.focalLength`).
  case source
  /// Estimated from the card itself (`FocalLengthCalibration`).
  case card
  /// Nothing known yet: a 60° horizontal field of view.
  case assumed
}

/// The ID-card estimator: finds an ID-1 card, follows it from frame to
/// frame, and measures its pose, size, speed, glare and sharpness
/// (docs/card.md). One instance per run, used from one thread.
public final class CardEstimator: Estimator {
  public let settings: CardEstimatorSettings
  public let descriptor: EstimatorDescriptor
  /// The card as printed, perspective removed (gray8, `rectifiedWidth` ×
  /// `rectifiedHeight`); valid when `lastObservation` is not nil, until the
  /// next frame. Made on first use: most frames never need it.
  public var lastRectified: ImageBuffer {
    if let source = rectifySource, let homography = lastHomography {
      Self.rectify(source, homography: homography, into: rectified)
      rectifySource = nil
    }
    return rectified
  }
  private let rectified = ImageBuffer(format: .gray8)
  /// The frame and homography `lastRectified` is still to be made from.
  private var rectifySource: ImageBuffer?
  private var lastHomography: Homography?
  /// The luma the card was last found in (valid until the next frame), and
  /// pixels of the captured frame per pixel of it: for ``overlay()``.
  private var lastGray: ImageBuffer?
  private var lastToSource = 1.0
  /// The card in the last frame, nil when none was found.
  public private(set) var lastObservation: CardObservation?

  private let prefix: String
  private let detector: CardDetector
  private let refiner = EdgeRefiner()
  private let appearance = CardAppearance()
  /// Frames in a row followed on borders that do not make a clear card.
  private var weakFrames = 0
  /// Frames in a row followed by the card's face alone (`CardAppearance`).
  private var appearanceFrames = 0
  /// Whether the face was taken from a card seen on all four sides.
  private var faceFromFourSides = false
  /// The border steps' widths in the last frame whose borders were found.
  private var lastSpread = [Double](repeating: 0, count: 4)
  private var nodes: [String: Int] = [:]
  private var tableNodes: [Int] = []
  // Tracking state, in the coordinates of the image searched (unmirrored).
  private var previousQuad: [Point2]?
  private var velocity: [Point2] = []
  private var previousPose: CardPose?
  private var previousTime = 0.0
  private var smoothedSpeed: Double?

  /// The largest shape residual (`CardPose.from(homography:camera:)`) of
  /// a card: 0 for a card seen by a camera of the assumed focal length; a
  /// wrong focal length or lens distortion adds some.
  static let maximumResidual = 0.12
  /// The same when the focal length is given: only lens distortion and
  /// noise are left, and a stricter bound keeps clutter from passing as a card.
  static let maximumResidualKnownFocal = 0.035

  private var residualLimit: Double {
    focalIsKnown ? Self.maximumResidualKnownFocal : Self.maximumResidual
  }
  /// The focal length of the frame being read, and where it came from.
  private var focalSource = FocalSource.assumed
  /// The focal length the frame's source gave (`DecodedFrame.focalLength`).
  public var sourceFocalLength: Double?
  private var calibration = FocalLengthCalibration()
  /// The focal length estimated from the card so far, pixels of the frame
  /// as captured; nil before the card has been tilted enough.
  public var estimatedFocalLength: Double? { calibration.focal }

  /// A refined card with its sides this well supported on average (each
  /// at least `strongSideSupport`) and a shape residual below
  /// `strongResidual` ends the search among candidates the detector rated
  /// well below it, and the search for cards seen on three sides only.
  static let strongSupport = 0.9
  static let strongSideSupport = 0.75
  static let strongResidual = 0.01

  /// A card with one or two sides that have no clear step is accepted
  /// when each other side has at least this support, and along each of
  /// those the colour inside and outside differ by `regionLevel` at
  /// `regionShare` of the points, the same way (`regionConsistency`), or
  /// faint steps line up there (`faintShare`).
  static let threeSidedSupport = 0.75
  /// A side with less support than this has no line along it to speak of.
  static let linelessSupport = 0.45

  /// When the borders of a card being followed cannot be found, its face
  /// (`CardAppearance`) is aligned instead and kept when it matches at least
  /// this well (normalised correlation), for at most `appearanceFrameLimit`
  /// frames in a row.
  static let appearanceCorrelation = 0.9
  static let appearanceFrameLimit = 15
  /// Borders found where the face matches this poorly are taken to have
  /// slipped when the face lines up well elsewhere.
  static let appearanceMismatch = 0.5
  /// The face is taken from frames whose card has a shape residual below
  /// this (and strong borders), and used for this many seconds.
  static let appearanceResidual = 0.015
  static let appearanceAge = 1.0
  /// A card followed on borders that do not make a clear card is searched
  /// for afresh on the first such frame and every this many after.
  static let recheckInterval = 3
  static let regionLevel = 16.0
  static let regionShare = 0.85
  static let regionConsistency = 0.35
  /// An unclear side with no region step is still the card's end when
  /// faint steps (`faintLevel` levels or more, looked for `faintReach`
  /// pixels either side) at `faintShare` of the points along it line up
  /// (`faintTolerance`) within `faintOffset` pixels of it
  /// (`EdgeRefiner.faintStep`).
  static let faintReach = 6
  static let faintLevel = 0.75
  static let faintShare = 0.65
  static let faintOffset = 3.0
  /// How far (pixels) a faint step may stray from the others: 1.5 px, or
  /// 0.7 × the width (σ) of the card's clear steps when it is blurred.
  static let faintTolerance = 1.5
  static let faintBlurTolerance = 0.7

  /// A card found afresh must have edges on at least this share of the
  /// detector's pixels inside it (its border, `printInset` of its size,
  /// left out): rendered cards have 8% or more, plain shapes of the
  /// clutter that make a card's outline mostly under 6%.
  static let minimumPrint = 0.06
  static let printInset = 0.15

  /// The card is looked for held in landscape, rolled at most this much.
  public static let maximumRoll = 60.0
  /// … and tilted at most this much on either axis (more, and the card is
  /// hardly readable; clutter makes such shapes far more often).
  public static let maximumTilt = 60.0

  public static let measurementNames = [
    "found", "corners.1.x", "corners.1.y", "corners.2.x", "corners.2.y", "corners.3.x", "corners.3.y", "corners.4.x",
    "corners.4.y", "width_ratio", "size_ratio", "focal_length", "distance_mm", "tilt_x", "tilt_y", "roll", "speed",
    "glare", "blur", "confidence",
  ]

  public init(settings: CardEstimatorSettings = CardEstimatorSettings(), prefix: String = "card") {
    self.settings = settings
    self.prefix = prefix
    detector = CardDetector(workingWidth: settings.workingWidth)
    descriptor = EstimatorDescriptor(
      name: prefix, summary: "ID-1 card: corners, pose (tilt, distance), speed, glare, blur",
      provides: Self.measurementNames.map { prefix + "." + $0 },
      fields: Self.measurementNames.map { MeasurementField(prefix + "." + $0, $0 == "found" ? .boolean : .number) },
      image: settings.useColor ? .color : .gray)
    rectified.reshape(width: settings.rectifiedWidth, height: settings.rectifiedHeight, format: .gray8)
  }

  public func prepare(schema: MeasurementSchema) throws(EstimatorError) {
    var tables = Set<Int>()
    for name in Self.measurementNames {
      let node = try schema.valueNode(prefix + "." + name, estimator: descriptor.name)
      nodes[name] = node
      tables.formUnion(schema.ancestors(of: node))
    }
    tableNodes = tables.sorted()
  }

  public func estimate(_ frame: DecodedFrame, into measurements: inout MeasurementFrame) {
    let sourceWidth = frame.sourceWidth > 0 ? frame.sourceWidth : frame.width
    let sourceHeight = frame.sourceHeight > 0 ? frame.sourceHeight : frame.height
    let color = frame.hasColor ? frame.color : nil
    sourceFocalLength = frame.focalLength
    let observation = process(
      gray: frame.gray, color: color, t: frame.t, sourceWidth: sourceWidth, sourceHeight: sourceHeight)
    guard let found = nodes["found"] else { return }
    for node in tableNodes { measurements[node] = .table }
    measurements[found] = .bool(observation != nil)
    guard let observation else { return }
    func put(_ name: String, _ value: Double, _ places: Double = 1000) {
      if let node = nodes[name] { measurements[node] = .number((value * places).rounded() / places) }
    }
    for (index, corner) in observation.corners.enumerated() {
      put("corners.\(index + 1).x", corner.x, 100)
      put("corners.\(index + 1).y", corner.y, 100)
    }
    put("width_ratio", observation.widthRatio, 10_000)
    put("size_ratio", observation.sizeRatio, 10_000)
    put("focal_length", observation.focalLength, 10)
    put("distance_mm", observation.pose.distance, 10)
    put("tilt_x", observation.pose.tiltX, 100)
    put("tilt_y", observation.pose.tiltY, 100)
    put("roll", observation.pose.roll, 100)
    put("speed", observation.speed, 10)
    put("glare", observation.glare)
    put("blur", observation.blur)
    put("confidence", observation.confidence)
  }

  /// Forgets the card being followed (the next frame is searched afresh).
  public func reset() {
    previousQuad = nil
    previousPose = nil
    velocity = []
    smoothedSpeed = nil
    lastObservation = nil
    appearanceFrames = 0
    weakFrames = 0
  }

  /// Looks for the card in `gray` (the frame's luma, possibly scaled down
  /// from `sourceWidth` × `sourceHeight`), taken at `t` seconds.
  @discardableResult
  public func process(gray: ImageBuffer, t: Double, sourceWidth: Int? = nil, sourceHeight: Int? = nil)
    -> CardObservation?
  {
    process(gray: gray, color: nil, t: t, sourceWidth: sourceWidth, sourceHeight: sourceHeight)
  }

  /// The same, with the frame in colour as well (rgb8, the size of `gray`;
  /// nil or another size: luma only). Colour is used when `useColor` is set.
  @discardableResult
  public func process(
    gray: ImageBuffer, color: ImageBuffer?, t: Double, sourceWidth: Int? = nil, sourceHeight: Int? = nil
  ) -> CardObservation? {
    lastObservation = nil
    rectifySource = nil
    lastHomography = nil
    let color =
      settings.useColor
      ? color.flatMap { $0.format == .rgb8 && $0.width == gray.width && $0.height == gray.height ? $0 : nil } : nil
    guard gray.format == .gray8, gray.width >= 32, gray.height >= 32 else {
      reset()
      return nil
    }
    let sourceWidth = sourceWidth ?? gray.width
    let toSource = Double(sourceWidth) / Double(gray.width)
    let sourceFocal: Double
    if let known = settings.focalLength {
      (sourceFocal, focalSource) = (known, .setting)
    } else if let degrees = settings.horizontalFieldOfView {
      (sourceFocal, focalSource) = (PinholeCamera.focal(width: sourceWidth, horizontalFieldOfView: degrees), .setting)
    } else if let known = sourceFocalLength {
      (sourceFocal, focalSource) = (known, .source)
    } else if settings.calibratesFocalLength, let estimated = calibration.focal {
      (sourceFocal, focalSource) = (estimated, .card)
    } else {
      (sourceFocal, focalSource) = (PinholeCamera.focal(width: sourceWidth), .assumed)
    }
    let camera = PinholeCamera(focal: sourceFocal / toSource, width: gray.width, height: gray.height)
    let minimumWidth = settings.minimumWidthRatio * Double(gray.width)

    appearance.newFrame()
    if appearance.hasTemplate, t - appearance.capturedAt > Self.appearanceAge || t < appearance.capturedAt {
      appearance.reset()
    }
    let frame = Frame(gray: gray, color: color, camera: camera, minimumWidth: minimumWidth)
    var found: Found?
    var tracked = false
    var byAppearance = false
    if let previous = previousQuad, let followed = follow(previous, in: frame) {
      found = followed.found
      tracked = true
      byAppearance = followed.byAppearance
    }
    if found == nil {
      found = search(frame)?.found
    } else if !byAppearance, let current = found, !isStrong(current.result, residual: current.accepted.2) {
      // A card followed on lines that do not quite make it (a line
      // printed inside it, clutter beside it) is checked by a fresh search
      // now and then: a clear card found elsewhere takes over.
      weakFrames += 1
      if weakFrames % Self.recheckInterval == 1, let fresh = search(frame), fresh.strong,
        (0..<4).contains(where: { k in
          !fresh.found.result.corners.contains { $0.distance(to: current.result.corners[k]) < 4 }
        })
      {
        found = fresh.found
        tracked = false
      }
    } else {
      weakFrames = 0
    }
    guard var (result, (ordered, pose, residual)) = found else {
      reset()
      return nil
    }
    var usedFocal = sourceFocal
    if focalSource == .assumed || focalSource == .card, settings.calibratesFocalLength, !byAppearance,
      hasStrongBorders(result),
      let h = Homography(from: CardFormat.corners, to: ordered.map { unmirror($0, width: gray.width) }),
      calibration.add(h, width: gray.width, height: gray.height, scale: toSource),
      let estimated = calibration.focal, abs(estimated - sourceFocal) > 0.002 * sourceFocal
    {
      // This view moved the estimate: read the pose with it at once, so a
      // flip is measured right from the first tilted frame.
      let recalibrated = PinholeCamera(focal: estimated / toSource, width: gray.width, height: gray.height)
      if let again = orderedPose(result.corners, camera: recalibrated) {
        (ordered, pose, residual) = again
        usedFocal = estimated
        focalSource = .card
      }
    }
    if byAppearance {
      appearanceFrames += 1
    } else {
      appearanceFrames = 0
      lastSpread = result.spread
      // The face is taken only where the card is unmistakable: a card
      // followed on a line printed inside it would be followed there on.
      // A card seen on four sides is surer than one whose fourth side was
      // inferred: a face taken from one is not replaced from the other.
      let fourSided = isStrong(result, residual: residual, limit: Self.appearanceResidual)
      if settings.followsFace,
        fourSided || (isClear(result, residual: residual) && !(appearance.hasTemplate && faceFromFourSides))
      {
        appearance.capture(gray, quad: ordered.map { unmirror($0, width: gray.width) }, t: t)
        faceFromFourSides = fourSided
      }
    }
    // Motion of each corner since the last frame, for the next prediction.
    if let previous = previousQuad, tracked {
      velocity = (0..<4).map { k in
        // Match the corner nearest to each previous one (the order may rotate).
        let nearest = result.corners.min { $0.distance(to: previous[k]) < $1.distance(to: previous[k]) }!
        return nearest - previous[k]
      }
    } else {
      velocity = []
    }
    previousQuad = result.corners

    var speed = 0.0
    if let previousPose, t > previousTime {
      let instant = previousPose.angle(to: pose) / (t - previousTime)
      speed = smoothedSpeed.map { 0.5 * $0 + 0.5 * instant } ?? instant
      smoothedSpeed = speed
    }
    previousPose = pose
    previousTime = t

    // The homography from card millimetres to `gray`, in real (mirrored) pixels.
    let imageCorners = ordered.map { unmirror($0, width: gray.width) }
    guard let h = Homography(from: CardFormat.corners, to: imageCorners) else { return nil }
    rectifySource = gray
    lastHomography = h
    lastGray = gray
    lastToSource = toSource
    let glare = glareShare(gray, homography: h)
    // Border steps: σ ≤ 0.7 px is sharp; the score halves every further 1.2 px.
    let spreads = result.spread.sorted()
    let spread = (spreads[2] + spreads[3]) / 2
    let blur = exp(-max(0, spread - 0.7) * log(2) / 1.2)
    let support = result.support.reduce(0, +) / 4
    let confidence = max(0, min(1, support * (1 - residual / residualLimit)))
    let widthRatio =
      (ordered[0].distance(to: ordered[1]) + ordered[3].distance(to: ordered[2])) / 2 / Double(gray.width)
    let sizeRatio = usedFocal * CardFormat.width / max(1e-9, pose.distance) / Double(sourceWidth)
    let observation = CardObservation(
      corners: imageCorners.map { Point2(($0.x + 0.5) * toSource - 0.5, ($0.y + 0.5) * toSource - 0.5) },
      pose: pose, widthRatio: widthRatio, sizeRatio: sizeRatio, focalLength: usedFocal, focalSource: focalSource,
      speed: speed, glare: glare, blur: blur, confidence: confidence, tracked: tracked)
    lastObservation = observation
    return observation
  }

  /// One frame as the estimator reads it.
  private struct Frame {
    var gray: ImageBuffer
    var color: ImageBuffer?
    var camera: PinholeCamera
    var minimumWidth: Double
    /// Colour when there is colour: acceptance reads the card's region in it.
    var image: ImageBuffer { color ?? gray }
  }

  /// The shape residual of a quadrilateral for the frame's camera, nil for no card.
  private func shape(_ frame: Frame) -> ([Point2]) -> Double? {
    { corners in self.orderedPose(corners, camera: frame.camera)?.2 }
  }

  /// The card's corners in printed order, in the pixels of the frame searched.
  private func printed(_ quad: [Point2], in frame: Frame) -> [Point2] {
    (orderedPose(quad, camera: frame.camera)?.0 ?? quad).map { unmirror($0, width: frame.gray.width) }
  }

  /// The card's face aligned from `quad`: corners clockwise on screen, and
  /// how well the face matches there; nil when it does not line up.
  private func alignFace(_ quad: [Point2], in frame: Frame) -> ([Point2], Double)? {
    guard settings.followsFace, appearance.hasTemplate,
      let aligned = appearance.align(frame.gray, quad: printed(quad, in: frame)),
      let (_, pose, _) = orderedPose(aligned, camera: frame.camera)
    else { return nil }
    // The face's eight degrees of freedom drift off a card's shape where
    // little is printed; the card the camera would see in that pose has it.
    let corners = pose.projectedCorners(camera: frame.camera).map { unmirror($0, width: frame.gray.width) }
    guard let correlation = appearance.match(frame.gray, quad: corners), correlation >= Self.appearanceCorrelation
    else { return nil }
    return (Quad.clockwise(corners), correlation)
  }

  /// A card placed by its face alone.
  private func faceResult(_ corners: [Point2], correlation: Double) -> EdgeRefiner.Result {
    EdgeRefiner.Result(
      corners: corners, support: [Double](repeating: correlation, count: 4), spread: lastSpread,
      contrast: [0, 0, 0, 0])
  }

  /// The card followed from `previous` (its corners in the last frame), and
  /// whether it was placed by its face alone; nil when it was lost.
  private func follow(_ previous: [Point2], in frame: Frame) -> (found: Found, byAppearance: Bool)? {
    let gray = frame.gray
    let color = frame.color
    let camera = frame.camera
    let shape = shape(frame)
    // Where the corners were, moved as they last moved.
    let predicted = (0..<4).map { previous[$0] + (velocity.count == 4 ? velocity[$0] : Point2(0, 0)) }
    let motion = velocity.map(\.length).max() ?? 0
    // Not much wider than the motion needs: lines printed a little inside
    // the edge (the header band's labels) must stay out of reach.
    let reach = min(48, 8 + 0.75 * motion + 0.01 * perimeter(predicted))
    if let first = refiner.refine(gray, color: color, camera: camera, quad: predicted, reach: reach, shape: shape),
      let second = refiner.refine(gray, color: color, camera: camera, quad: first.corners, reach: 3, shape: shape),
      let accepted = accept(second, in: frame)
    {
      let bordersFound = (second, accepted)
      // Borders that slipped onto a line printed on the card, or one
      // behind it, leave the face askew: where the face then lines up
      // elsewhere and borders are found there too, the better card of the
      // two is kept.
      guard settings.followsFace, let matched = appearance.match(gray, quad: printed(second.corners, in: frame)),
        matched < Self.appearanceCorrelation, let (corners, correlation) = alignFace(predicted, in: frame)
      else { return (bordersFound, false) }
      if let edges = refiner.refine(gray, color: color, camera: camera, quad: corners, reach: 3, shape: shape),
        let alternative = accept(edges, in: frame)
      {
        // Borders slip inwards onto printed lines far more often than
        // outwards: a larger card where the face lines up wins anyway.
        let atFace = (edges, alternative)
        let better =
          score(atFace) > score(bordersFound) || perimeter(alternative.0) > 1.02 * perimeter(accepted.0)
        return (better ? atFace : bordersFound, false)
      }
      // The face lines up clearly elsewhere and the borders found make no
      // sense of it: the borders are the ones that slipped.
      if matched < Self.appearanceMismatch, appearanceFrames < Self.appearanceFrameLimit,
        let placed = acceptShape(corners, in: frame)
      {
        return ((faceResult(corners, correlation: correlation), placed), true)
      }
      return (bordersFound, false)
    }
    // No border found where the card should be: align its face.
    guard appearanceFrames < Self.appearanceFrameLimit, let (corners, correlation) = alignFace(predicted, in: frame)
    else { return nil }
    // The borders that can be seen from there still have the last word.
    if let edges = refiner.refine(gray, color: color, camera: camera, quad: corners, reach: 3, shape: shape),
      let accepted = accept(edges, in: frame)
    {
      return ((edges, accepted), false)
    }
    guard let placed = acceptShape(corners, in: frame) else { return nil }
    return ((faceResult(corners, correlation: correlation), placed), true)
  }

  /// The best card found in `gray` without any prior, and whether it is
  /// clear: found on four well-backed sides with a card's very shape.
  private func search(_ frame: Frame) -> (found: Found, strong: Bool)? {
    let gray = frame.gray
    let color = frame.color
    let camera = frame.camera
    let shape = shape(frame)
    var best: Found?
    let coarse = Double(gray.width) / Double(max(1, min(settings.workingWidth, gray.width)))
    var bestScore = 0.0
    var accepted: [[Point2]] = []
    var strong = false
    var strongScore = 0.0
    func consider(_ candidates: [CardDetector.Candidate]) {
      for candidate in candidates {
        // A candidate cannot beat the best so far when even its whole
        // perimeter, fully supported and of a perfect shape, would not
        // (with some room for refinement moving its sides).
        guard perimeter(candidate.corners) * 1.1 > bestScore else { continue }
        // A card found on all four sides and of a card's very shape is not
        // beaten by a candidate the detector rated well below it.
        if strong, candidate.score < 0.8 * strongScore { break }
        // Nor when it starts where an earlier one ended: it would end there too.
        let settled = accepted.contains { corners in
          candidate.corners.allSatisfy { corner in corners.contains { $0.distance(to: corner) < 1.5 * coarse } }
        }
        if settled { continue }
        guard
          let first = refiner.refine(
            gray, color: color, camera: camera, quad: candidate.corners, reach: 3 * coarse + 4,
            uncertainSide: candidate.completedSide, shape: shape),
          let second = refiner.refine(
            gray, color: color, camera: camera, quad: first.corners, reach: 3, shape: shape),
          let card = accept(second, in: frame)
        else { continue }
        accepted.append(second.corners)
        // A card carries print (a photo, text, a pattern); a plain shape of
        // the clutter that happens to make a card's outline does not.
        guard detector.edgeDensity(second.corners, inset: Self.printInset) >= Self.minimumPrint else { continue }
        let score = self.score((second, card)) * candidate.plausibility
        if score > bestScore {
          bestScore = score
          best = (second, card)
          strong = isStrong(second, residual: card.2)
          strongScore = candidate.score
        }
      }
    }
    consider(detector.detect(gray, color: color, camera: camera, minimumWidth: frame.minimumWidth))
    // A card with a side smeared or hidden is looked for only when no
    // clear card was found on four sides.
    if !strong { consider(detector.completed()) }
    return best.map { ($0, strong) }
  }

  /// How good a card found is: its perimeter as backed by edges, lowered
  /// as its shape departs from a card's.
  private func score(_ found: Found) -> Double {
    perimeter(found.accepted.0) * found.result.support.reduce(0, +) / 4
      * exp(-found.accepted.2 / CardDetector.residualScale)
  }

  /// Borders clear on all four sides, whatever the shape residual: a view
  /// the focal length may be estimated from.
  private func hasStrongBorders(_ result: EdgeRefiner.Result) -> Bool {
    result.support.reduce(0, +) / 4 >= Self.strongSupport && result.support.allSatisfy { $0 >= Self.strongSideSupport }
  }

  /// Whether `result` is a card beyond doubt: four well-backed sides, a
  /// card's very shape.
  private func isStrong(_ result: EdgeRefiner.Result, residual: Double, limit: Double = strongResidual) -> Bool {
    hasStrongBorders(result) && residual < limit
  }

  /// Whether the card's face can be read from `result`, an accepted card:
  /// three sides backed as a strong card's are, the fourth (which
  /// acceptance checked) as it may be, and a card's very shape. A card
  /// on a sheet of its own colour never shows all four sides.
  private func isClear(_ result: EdgeRefiner.Result, residual: Double) -> Bool {
    let best = result.support.sorted().dropFirst()
    return best.allSatisfy { $0 >= Self.strongSideSupport }
      && best.reduce(0, +) / Double(best.count) >= Self.strongSupport && residual < Self.appearanceResidual
  }

  /// Corners in printed order (unmirrored), pose, shape residual.
  private typealias Accepted = ([Point2], CardPose, Double)
  /// A card found in a frame: its sides as refined, and as accepted.
  private typealias Found = (result: EdgeRefiner.Result, accepted: Accepted)

  /// The corners in printed order (in unmirrored coordinates), the pose and
  /// the shape residual when `result` looks like a whole card (a side or
  /// two unclear, when the card's region still ends along them); else nil.
  private func accept(_ result: EdgeRefiner.Result, in frame: Frame) -> Accepted? {
    let clear = result.support.allSatisfy { $0 >= Self.linelessSupport } && result.support.reduce(0, +) >= 3.2
    if !clear {
      // One or two sides without a clear step (smeared by motion, faint, or
      // on a sheet of the card's own colour): the others well backed, and
      // the card's region still ending along each of them.
      let unclear = (0..<4).filter { result.support[$0] < Self.threeSidedSupport }
      guard unclear.count <= 2 else { return nil }
      let center = result.corners.reduce(Point2(0, 0)) { $0 + $1 } * 0.25
      for side in unclear {
        let a = result.corners[side]
        let b = result.corners[(side + 1) % 4]
        let size = min(a.distance(to: b), result.corners[(side + 1) % 4].distance(to: result.corners[(side + 2) % 4]))
        let gap = max(3, min(16, 0.06 * size))
        let step = refiner.regionStep(frame.image, a, b, center: center, gap: gap, band: gap, level: Self.regionLevel)
        if step.share >= Self.regionShare, step.consistency >= Self.regionConsistency { continue }
        // Nearly the same colour on both sides: a faint step exactly where
        // the other sides put this one still shows the card's end. Not
        // where a line was found along part of a lone unclear side: there
        // the faint steps are as likely print lined up inside the card
        // (its text's margin); two such sides are a corner of the card
        // lying on a sheet of its own colour.
        guard result.support[side] < Self.linelessSupport || unclear.count == 2 else { return nil }
        // A blurred card's faint steps are as wide as its clear ones.
        let spreads = (0..<4).filter { !unclear.contains($0) }.map { result.spread[$0] }.sorted()
        let blur = spreads.isEmpty ? 0 : spreads[spreads.count / 2]
        let tolerance = max(Self.faintTolerance, Self.faintBlurTolerance * blur)
        let faint = refiner.faintStep(
          frame.image, a, b, center: center, reach: Self.faintReach, level: Self.faintLevel, tolerance: tolerance)
        guard faint.share >= Self.faintShare, abs(faint.offset) <= Self.faintOffset else { return nil }
      }
    }
    return acceptShape(result.corners, in: frame)
  }

  /// The corners in printed order (unmirrored), the pose and the shape
  /// residual when `corners` could be a whole card in the frame, large enough.
  private func acceptShape(_ corners: [Point2], in frame: Frame) -> Accepted? {
    let camera = frame.camera
    let width = Double(camera.width)
    let height = Double(camera.height)
    guard corners.allSatisfy({ $0.x >= -0.5 && $0.y >= -0.5 && $0.x <= width - 0.5 && $0.y <= height - 0.5 })
    else { return nil }
    guard let best = orderedPose(corners, camera: camera), best.2 < residualLimit else { return nil }
    // The card's width were it facing the camera at the same distance: a
    // card does not become too small to look for by being tilted.
    let widthPixels = camera.focal * CardFormat.width / max(1e-9, best.1.translation.z)
    guard widthPixels >= frame.minimumWidth else { return nil }
    return best
  }

  /// The corners in printed order (unmirrored), the pose and the shape
  /// residual of the upright card with those corners.
  private func orderedPose(_ quad: [Point2], camera: PinholeCamera) -> ([Point2], CardPose, Double)? {
    // Unmirrored, clockwise on screen.
    let corners = Quad.clockwise(quad.map { unmirror($0, width: camera.width) })
    var best: ([Point2], CardPose, Double)?
    for start in 0..<4 {
      let ordered = (0..<4).map { corners[(start + $0) % 4] }
      guard let h = Homography(from: CardFormat.corners, to: ordered),
        let (pose, cameraResidual) = CardPose.from(homography: h, camera: camera)
      else { continue }
      var residual = cameraResidual
      if !focalIsKnown, let own = ownFocalResidual(h, camera: camera) { residual = min(residual, own) }
      // Held in landscape: the printed top edge runs left to right.
      guard abs(pose.roll) <= Self.maximumRoll else { continue }
      guard abs(pose.tiltX) <= Self.maximumTilt, abs(pose.tiltY) <= Self.maximumTilt else { continue }
      if best == nil || residual < best!.2 { best = (ordered, pose, residual) }
    }
    return best
  }

  /// Whether the focal length comes from the settings or the source, not
  /// from an assumption or an estimate.
  private var focalIsKnown: Bool { focalSource == .setting || focalSource == .source }

  /// The shape residual of a tilted quadrilateral for the focal length
  /// that fits it best, when that is a plausible one near the camera's: a
  /// card seen by a camera whose focal length is not known yet is still a
  /// card, where judging it by the assumed one would prefer a line printed
  /// inside it as the card tilts. Nil for a view that says little about
  /// the focal length (a card almost facing the camera).
  private func ownFocalResidual(_ h: Homography, camera: PinholeCamera) -> Double? {
    guard let (focal, weight) = FocalLengthCalibration.view(h, width: camera.width, height: camera.height),
      weight >= FocalLengthCalibration.minimumViewWeight, focal > camera.focal / Self.focalSpread,
      focal < camera.focal * Self.focalSpread
    else { return nil }
    return CardPose.from(
      homography: h, camera: PinholeCamera(focal: focal, width: camera.width, height: camera.height))?.residual
  }

  /// How far a card's own focal length may be from the camera's assumed
  /// one (a factor): 60° assumed covers fields of view from 35° to 90°.
  static let focalSpread = 1.8

  private func unmirror(_ p: Point2, width: Int) -> Point2 {
    settings.mirror ? Point2(Double(width - 1) - p.x, p.y) : p
  }

  private func perimeter(_ q: [Point2]) -> Double {
    (0..<4).reduce(0) { $0 + q[$1].distance(to: q[($1 + 1) % 4]) }
  }

  /// Share of the card's area at or above the glare level: the frame read
  /// at a grid of points on the card (every 0.8 mm, a band of 1/50 of the
  /// card's width left out along its border), nearest pixels.
  private func glareShare(_ image: ImageBuffer, homography: Homography) -> Double {
    let level = settings.glareLevel
    let columns = 107
    let rows = 67
    let marginX = CardFormat.width / 50
    let marginY = CardFormat.height / 50
    let stepX = (CardFormat.width - 2 * marginX) / Double(columns - 1)
    let stepY = (CardFormat.height - 2 * marginY) / Double(rows - 1)
    let m = homography.matrix.m
    let width = image.width
    let maxX = Double(image.width - 1)
    let maxY = Double(image.height - 1)
    var hits = 0
    for row in 0..<rows {
      let cardY = -CardFormat.height / 2 + marginY + Double(row) * stepY
      let cardX0 = -CardFormat.width / 2 + marginX
      var u = m[0] * cardX0 + m[1] * cardY + m[2]
      var v = m[3] * cardX0 + m[4] * cardY + m[5]
      var w = m[6] * cardX0 + m[7] * cardY + m[8]
      for _ in 0..<columns {
        let x = Int(max(0, min(maxX, u / w)) + 0.5)
        let y = Int(max(0, min(maxY, v / w)) + 0.5)
        if image.pixels[y * width + x] >= level { hits += 1 }
        u += m[0] * stepX
        v += m[3] * stepX
        w += m[6] * stepX
      }
    }
    return Double(hits) / Double(columns * rows)
  }

  /// Samples `source` (gray8 or rgb8) through `homography` (card
  /// millimetres to pixels of `source`) into `destination`, which keeps its
  /// size and takes `source`'s format: the card as printed, perspective removed.
  public static func rectify(_ source: ImageBuffer, homography: Homography, into destination: ImageBuffer) {
    let width = max(1, destination.width)
    let height = max(1, destination.height)
    destination.reshape(width: width, height: height, format: source.format)
    let channels = source.format.bytesPerPixel
    let m = homography.matrix.m
    let stepX = CardFormat.width / Double(width)
    let stepY = CardFormat.height / Double(height)
    let sourceWidth = source.width
    let maxX = Double(source.width - 1)
    let maxY = Double(source.height - 1)
    let input = source.pixels
    let output = destination.pixels
    for row in 0..<height {
      let cardY = (Double(row) + 0.5) * stepY - CardFormat.height / 2
      let cardX0 = 0.5 * stepX - CardFormat.width / 2
      var u = m[0] * cardX0 + m[1] * cardY + m[2]
      var v = m[3] * cardX0 + m[4] * cardY + m[5]
      var w = m[6] * cardX0 + m[7] * cardY + m[8]
      let du = m[0] * stepX
      let dv = m[3] * stepX
      let dw = m[6] * stepX
      var out = output + row * width * channels
      for _ in 0..<width {
        let x = max(0, min(maxX, u / w))
        let y = max(0, min(maxY, v / w))
        let ix = min(sourceWidth - 2, Int(x))
        let iy = min(source.height - 2, Int(y))
        let fx = x - Double(ix)
        let fy = y - Double(iy)
        let p = input + (iy * sourceWidth + ix) * channels
        let below = sourceWidth * channels
        for c in 0..<channels {
          let top = Double(p[c]) * (1 - fx) + Double(p[c + channels]) * fx
          let bottom = Double(p[below + c]) * (1 - fx) + Double(p[below + c + channels]) * fx
          out[c] = UInt8(top * (1 - fy) + bottom * fy + 0.5)
        }
        out += channels
        u += du
        v += dv
        w += dw
      }
    }
  }

  /// Copies the part of `rectified` inside `region` (normalised card
  /// coordinates; the layout's portrait when nil) into `destination`.
  /// False when there is no card or the region is empty.
  @discardableResult
  public func cropPortrait(into destination: ImageBuffer, region: NormalizedRect? = nil) -> Bool {
    guard lastObservation != nil else { return false }
    return Self.crop(lastRectified, region: region ?? settings.layout.portrait, into: destination)
  }

  /// Copies `region` (normalised card coordinates) of a rectified card image.
  @discardableResult
  public static func crop(_ rectified: ImageBuffer, region: NormalizedRect, into destination: ImageBuffer) -> Bool {
    let x0 = Int((region.x * Double(rectified.width)).rounded())
    let y0 = Int((region.y * Double(rectified.height)).rounded())
    let x1 = Int((region.maxX * Double(rectified.width)).rounded())
    let y1 = Int((region.maxY * Double(rectified.height)).rounded())
    guard
      let inside = try? ImageConversion.crop(
        rectified, x: x0, y: y0, width: x1 - x0, height: y1 - y0, into: destination),
      inside.width > 0, inside.height > 0
    else { return false }
    return true
  }
}

extension CardEstimator: OverlayDrawing {
  /// Where the card has glare: the cells of a 36 × 23 grid over the card
  /// (about 2.4 mm square) whose centre is at or above the glare level, as
  /// quads in the captured frame's pixels. Only for a card found on this frame.
  public func overlay() -> JSONObject {
    guard lastObservation != nil, let gray = lastGray, let h = lastHomography, gray.width > 0 else {
      return JSONObject()
    }
    let columns = 36
    let rows = 23
    let cellX = CardFormat.width / Double(columns)
    let cellY = CardFormat.height / Double(rows)
    let m = h.matrix.m
    func project(_ x: Double, _ y: Double) -> (Double, Double) {
      let w = m[6] * x + m[7] * y + m[8]
      return ((m[0] * x + m[1] * y + m[2]) / w, (m[3] * x + m[4] * y + m[5]) / w)
    }
    var quads: [JSONValue] = []
    for row in 0..<rows {
      for column in 0..<columns {
        let left = -CardFormat.width / 2 + Double(column) * cellX
        let top = -CardFormat.height / 2 + Double(row) * cellY
        let (cx, cy) = project(left + cellX / 2, top + cellY / 2)
        let x = Int(cx.rounded())
        let y = Int(cy.rounded())
        guard x >= 0, y >= 0, x < gray.width, y < gray.height, gray.pixels[y * gray.width + x] >= settings.glareLevel
        else { continue }
        var corners: [JSONValue] = []
        for (cornerX, cornerY) in [(left, top), (left + cellX, top), (left + cellX, top + cellY), (left, top + cellY)] {
          let (px, py) = project(cornerX, cornerY)
          corners.append(.number((((px + 0.5) * lastToSource - 0.5) * 10).rounded() / 10))
          corners.append(.number((((py + 0.5) * lastToSource - 0.5) * 10).rounded() / 10))
        }
        quads.append(.array(corners))
      }
    }
    return JSONObject([("card.glare", .array(quads))])
  }
}
