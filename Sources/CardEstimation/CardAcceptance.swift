import CardGeometry
import Foundation
import Imaging

/// How the tracker judges a quadrilateral: whether it could be a whole
/// card in the frame, its corners in printed order and its pose, and how
/// clear and how good a card it makes.
extension CardTracker {
  /// A card's corners in printed order (unmirrored), its pose and its shape residual.
  struct PosedCard {
    var corners: [Point2]
    var pose: CardPose
    var residual: Double
  }

  /// A card found in a frame: its sides as refined, and as accepted.
  typealias Found = (result: EdgeRefiner.Result, accepted: PosedCard)

  var residualLimit: Double {
    focalIsKnown ? tuning.maximumResidualKnownFocal : tuning.maximumResidual
  }

  /// The shape residual of a quadrilateral for the frame's camera, nil for no card.
  func shape(_ frame: Frame) -> ([Point2]) -> Double? {
    { corners in self.orderedPose(corners, camera: frame.camera)?.residual }
  }

  /// How good a card found is: its perimeter as backed by edges, lowered
  /// as its shape departs from a card's.
  func score(_ found: Found) -> Double {
    perimeter(found.accepted.corners) * found.result.support.reduce(0, +) / 4
      * exp(-found.accepted.residual / CardDetector.residualScale)
  }

  /// Borders clear on all four sides, whatever the shape residual: a view
  /// the focal length may be estimated from.
  func hasStrongBorders(_ result: EdgeRefiner.Result) -> Bool {
    result.support.reduce(0, +) / 4 >= tuning.strongSupport
      && result.support.allSatisfy { $0 >= tuning.strongSideSupport }
  }

  /// Whether `result` is a card beyond doubt: four well-backed sides, a
  /// card's very shape.
  func isStrong(_ result: EdgeRefiner.Result, residual: Double, limit: Double? = nil) -> Bool {
    hasStrongBorders(result) && residual < (limit ?? tuning.strongResidual)
  }

  /// Whether the card's face can be read from `result`, an accepted card:
  /// three sides backed as a strong card's are, the fourth (which
  /// acceptance checked) as it may be, and a card's very shape. A card
  /// on a sheet of its own colour never shows all four sides.
  func isClear(_ result: EdgeRefiner.Result, residual: Double) -> Bool {
    let best = result.support.sorted().dropFirst()
    return best.allSatisfy { $0 >= tuning.strongSideSupport }
      && best.reduce(0, +) / Double(best.count) >= tuning.strongSupport && residual < tuning.appearanceResidual
  }

  /// The corners in printed order (in unmirrored coordinates), the pose and
  /// the shape residual when `result` looks like a whole card (a side or
  /// two unclear, when the card's region still ends along them); else nil.
  func accept(_ result: EdgeRefiner.Result, in frame: Frame) -> PosedCard? {
    let clear = result.support.allSatisfy { $0 >= tuning.linelessSupport } && result.support.reduce(0, +) >= 3.2
    if !clear {
      // One or two sides without a clear step (smeared by motion, faint, or
      // on a sheet of the card's own colour): the others well backed, and
      // the card's region still ending along each of them.
      let unclear = (0..<4).filter { result.support[$0] < tuning.threeSidedSupport }
      guard unclear.count <= 2 else { return nil }
      let center = result.corners.reduce(Point2(0, 0)) { $0 + $1 } * 0.25
      for side in unclear {
        let a = result.corners[side]
        let b = result.corners[(side + 1) % 4]
        let size = min(a.distance(to: b), result.corners[(side + 1) % 4].distance(to: result.corners[(side + 2) % 4]))
        let gap = max(3, min(16, 0.06 * size))
        let step = refiner.regionStep(frame.image, a, b, center: center, gap: gap, band: gap, level: tuning.regionLevel)
        if step.share >= tuning.regionShare, step.consistency >= tuning.regionConsistency { continue }
        // Nearly the same colour on both sides: a faint step exactly where
        // the other sides put this one still shows the card's end. Not
        // where a line was found along part of a lone unclear side: there
        // the faint steps are as likely print lined up inside the card
        // (its text's margin); two such sides are a corner of the card
        // lying on a sheet of its own colour.
        guard result.support[side] < tuning.linelessSupport || unclear.count == 2 else { return nil }
        // A blurred card's faint steps are as wide as its clear ones.
        let spreads = (0..<4).filter { !unclear.contains($0) }.map { result.spread[$0] }.sorted()
        let blur = spreads.isEmpty ? 0 : spreads[spreads.count / 2]
        let tolerance = max(tuning.faintTolerance, tuning.faintBlurTolerance * blur)
        let faint = refiner.faintStep(
          frame.image, a, b, center: center, reach: tuning.faintReach, level: tuning.faintLevel, tolerance: tolerance)
        guard faint.share >= tuning.faintShare, abs(faint.offset) <= tuning.faintOffset else { return nil }
      }
    }
    return acceptShape(result.corners, in: frame)
  }

  /// The corners in printed order (unmirrored), the pose and the shape
  /// residual when `corners` could be a whole card in the frame, large enough.
  func acceptShape(_ corners: [Point2], in frame: Frame) -> PosedCard? {
    let camera = frame.camera
    let width = Double(camera.width)
    let height = Double(camera.height)
    guard corners.allSatisfy({ $0.x >= -0.5 && $0.y >= -0.5 && $0.x <= width - 0.5 && $0.y <= height - 0.5 })
    else { return nil }
    guard let best = orderedPose(corners, camera: camera), best.residual < residualLimit else { return nil }
    // The card's width were it facing the camera at the same distance: a
    // card does not become too small to look for by being tilted.
    let widthPixels = camera.focal * CardFormat.width / max(1e-9, best.pose.translation.z)
    guard widthPixels >= frame.minimumWidth else { return nil }
    return best
  }

  /// The corners in printed order (unmirrored), the pose and the shape
  /// residual of the upright card with those corners.
  func orderedPose(_ quad: [Point2], camera: PinholeCamera) -> PosedCard? {
    // Unmirrored, clockwise on screen.
    let corners = Quad.clockwise(quad.map { unmirror($0, width: camera.width) })
    var best: PosedCard?
    for start in 0..<4 {
      let ordered = (0..<4).map { corners[(start + $0) % 4] }
      guard let h = Homography(from: CardFormat.corners, to: ordered),
        let (pose, cameraResidual) = CardPose.from(homography: h, camera: camera)
      else { continue }
      var residual = cameraResidual
      if !focalIsKnown, let own = ownFocalResidual(h, camera: camera) { residual = min(residual, own) }
      // Held in landscape: the printed top edge runs left to right.
      guard abs(pose.roll) <= tuning.maximumRoll else { continue }
      guard abs(pose.tiltX) <= tuning.maximumTilt, abs(pose.tiltY) <= tuning.maximumTilt else { continue }
      if best == nil || residual < best!.residual { best = PosedCard(corners: ordered, pose: pose, residual: residual) }
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
      weight >= FocalLengthCalibration.minimumViewWeight, focal > camera.focal / tuning.focalSpread,
      focal < camera.focal * tuning.focalSpread
    else { return nil }
    return CardPose.from(
      homography: h, camera: PinholeCamera(focal: focal, width: camera.width, height: camera.height))?.residual
  }

  func unmirror(_ p: Point2, width: Int) -> Point2 {
    settings.mirror ? Point2(Double(width - 1) - p.x, p.y) : p
  }

  func perimeter(_ q: [Point2]) -> Double {
    (0..<4).reduce(0) { $0 + q[$1].distance(to: q[($1 + 1) % 4]) }
  }
}
