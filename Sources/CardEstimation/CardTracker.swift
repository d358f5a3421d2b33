import CardGeometry
import Foundation
import Imaging

/// Finds the card in each frame and follows it from frame to frame: the
/// detector's candidates refined to the card's borders where there is no
/// card yet, the last card's borders (moved as they last moved) or its
/// face where there is one; then its pose, speed, glare and sharpness. The
/// focal length comes from the settings, the source, or the card itself.
/// Works in the coordinates of the image searched; corners are unmirrored
/// for the pose. Used from one thread.
final class CardTracker {
  let settings: CardEstimatorSettings
  let tuning: CardTrackerTuning
  private let detector: CardDetector
  let refiner = EdgeRefiner()
  private let appearance = CardAppearance()
  /// Frames in a row followed on borders that do not make a clear card.
  private var weakFrames = 0
  /// Frames in a row followed by the card's face alone (`CardAppearance`).
  private var appearanceFrames = 0
  /// Whether the face was taken from a card seen on all four sides.
  private var faceFromFourSides = false
  /// The border steps' widths in the last frame whose borders were found.
  private var lastSpread = [Double](repeating: 0, count: 4)
  // Tracking state, in the coordinates of the image searched (unmirrored).
  private var previousQuad: [Point2]?
  private var velocity: [Point2] = []
  private var previousPose: CardPose?
  private var previousTime = 0.0
  private var smoothedSpeed: Double?

  /// The focal length of the frame being read, and where it came from.
  private(set) var focalSource = FocalSource.assumed
  /// The focal length the frame's source gave (`DecodedFrame.focalLength`).
  var sourceFocalLength: Double?
  private var calibration = FocalLengthCalibration()
  /// The focal length estimated from the card so far, pixels of the frame
  /// as captured; nil before the card has been tilted enough.
  var estimatedFocalLength: Double? { calibration.focal }

  init(settings: CardEstimatorSettings, tuning: CardTrackerTuning = .standard) {
    self.settings = settings
    self.tuning = tuning
    detector = CardDetector(workingWidth: settings.workingWidth)
  }

  /// Forgets the card being followed (the next frame is searched afresh).
  func reset() {
    previousQuad = nil
    previousPose = nil
    velocity = []
    smoothedSpeed = nil
    appearanceFrames = 0
    weakFrames = 0
  }

  /// The card found in a frame, and what its rectified image and overlay are made from.
  struct Sighting {
    var observation: CardObservation
    /// From card millimetres to the pixels of the image searched (mirrored as it is).
    var homography: Homography
    /// Pixels of the frame as captured per pixel of the image searched.
    var toSource: Double
  }

  /// Looks for the card in `gray` (the frame's luma, possibly scaled down
  /// from `sourceWidth` pixels wide), with `color` the same frame in colour
  /// (rgb8, the size of `gray`; nil or another size: luma only), taken at
  /// `t` seconds. Nil, and the card forgotten, when there is none.
  func track(gray: ImageBuffer, color: ImageBuffer?, t: Double, sourceWidth: Int?) -> Sighting? {
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
    if appearance.hasTemplate, t - appearance.capturedAt > tuning.appearanceAge || t < appearance.capturedAt {
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
    } else if !byAppearance, let current = found, !isStrong(current.result, residual: current.accepted.residual) {
      // A card followed on lines that do not quite make it (a line
      // printed inside it, clutter beside it) is checked by a fresh search
      // now and then: a clear card found elsewhere takes over. Only cards
      // seen on four sides are looked for: the clear card wanted nearly
      // always is one, and the three-sided search would double the cost
      // of these frames, the slowest of a run.
      weakFrames += 1
      if weakFrames % tuning.recheckInterval == 1, let fresh = search(frame, threeSided: false), fresh.strong,
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
    guard let found else {
      reset()
      return nil
    }
    let result = found.result
    var (ordered, pose, residual) = (found.accepted.corners, found.accepted.pose, found.accepted.residual)
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
        (ordered, pose, residual) = (again.corners, again.pose, again.residual)
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
      let fourSided = isStrong(result, residual: residual, limit: tuning.appearanceResidual)
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
    let glare = CardEstimator.glareShare(gray, homography: h, level: settings.glareLevel)
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
    return Sighting(observation: observation, homography: h, toSource: toSource)
  }

  /// One frame as the tracker reads it.
  struct Frame {
    var gray: ImageBuffer
    var color: ImageBuffer?
    var camera: PinholeCamera
    var minimumWidth: Double
    /// Colour when there is colour: acceptance reads the card's region in it.
    var image: ImageBuffer { color ?? gray }
  }

  /// The card's corners in printed order, in the pixels of the frame searched.
  private func printed(_ quad: [Point2], in frame: Frame) -> [Point2] {
    (orderedPose(quad, camera: frame.camera)?.corners ?? quad).map { unmirror($0, width: frame.gray.width) }
  }

  /// The card's face aligned from `quad`: corners clockwise on screen, and
  /// how well the face matches there; nil when it does not line up.
  private func alignFace(_ quad: [Point2], in frame: Frame) -> ([Point2], Double)? {
    guard settings.followsFace, appearance.hasTemplate,
      let aligned = appearance.align(frame.gray, quad: printed(quad, in: frame)),
      let pose = orderedPose(aligned, camera: frame.camera)?.pose
    else { return nil }
    // The face's eight degrees of freedom drift off a card's shape where
    // little is printed; the card the camera would see in that pose has it.
    let corners = pose.projectedCorners(camera: frame.camera).map { unmirror($0, width: frame.gray.width) }
    guard let correlation = appearance.match(frame.gray, quad: corners), correlation >= tuning.appearanceCorrelation
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
        matched < tuning.appearanceCorrelation, let (corners, correlation) = alignFace(predicted, in: frame)
      else { return (bordersFound, false) }
      if let edges = refiner.refine(gray, color: color, camera: camera, quad: corners, reach: 3, shape: shape),
        let alternative = accept(edges, in: frame)
      {
        // Borders slip inwards onto printed lines far more often than
        // outwards: a larger card where the face lines up wins anyway.
        let atFace = (edges, alternative)
        let better =
          score(atFace) > score(bordersFound) || perimeter(alternative.corners) > 1.02 * perimeter(accepted.corners)
        return (better ? atFace : bordersFound, false)
      }
      // The face lines up clearly elsewhere and the borders found make no
      // sense of it: the borders are the ones that slipped.
      if matched < tuning.appearanceMismatch, appearanceFrames < tuning.appearanceFrameLimit,
        let placed = acceptShape(corners, in: frame)
      {
        return ((faceResult(corners, correlation: correlation), placed), true)
      }
      return (bordersFound, false)
    }
    // No border found where the card should be: align its face.
    guard appearanceFrames < tuning.appearanceFrameLimit, let (corners, correlation) = alignFace(predicted, in: frame)
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
  /// Without `threeSided`, cards seen on three sides are not looked for.
  private func search(_ frame: Frame, threeSided: Bool = true) -> (found: Found, strong: Bool)? {
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
        guard detector.edgeDensity(second.corners, inset: tuning.printInset) >= tuning.minimumPrint else { continue }
        let score = self.score((second, card)) * candidate.plausibility
        if score > bestScore {
          bestScore = score
          best = (second, card)
          strong = isStrong(second, residual: card.residual)
          strongScore = candidate.score
        }
      }
    }
    consider(detector.detect(gray, color: color, camera: camera, minimumWidth: frame.minimumWidth))
    // A card with a side smeared or hidden is looked for only when no
    // clear card was found on four sides.
    if !strong, threeSided { consider(detector.completed()) }
    return best.map { ($0, strong) }
  }
}
