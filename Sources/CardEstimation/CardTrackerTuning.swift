/// The card tracker's thresholds and limits (`CardTracker`): what it
/// takes for a card, when it trusts one, and how it follows one by its face.
struct CardTrackerTuning: Sendable {
  /// The largest shape residual (`CardPose.from(homography:camera:)`) of
  /// a card: 0 for a card seen by a camera of the assumed focal length; a
  /// wrong focal length or lens distortion adds some.
  var maximumResidual = 0.12
  /// The same when the focal length is given: only lens distortion and
  /// noise are left, and a stricter bound keeps clutter from passing as a card.
  var maximumResidualKnownFocal = 0.035

  /// A refined card with its sides this well supported on average (each
  /// at least `strongSideSupport`) and a shape residual below
  /// `strongResidual` ends the search among candidates the detector rated
  /// well below it, and the search for cards seen on three sides only.
  var strongSupport = 0.9
  var strongSideSupport = 0.75
  var strongResidual = 0.01

  /// A card with one or two sides that have no clear step is accepted
  /// when each other side has at least this support, and along each of
  /// those the colour inside and outside differ by `regionLevel` at
  /// `regionShare` of the points, the same way (`regionConsistency`), or
  /// faint steps line up there (`faintShare`).
  var threeSidedSupport = 0.75
  /// A side with less support than this has no line along it to speak of.
  var linelessSupport = 0.45

  /// When the borders of a card being followed cannot be found, its face
  /// (`CardAppearance`) is aligned instead and kept when it matches at least
  /// this well (normalised correlation), for at most `appearanceFrameLimit`
  /// frames in a row.
  var appearanceCorrelation = 0.9
  var appearanceFrameLimit = 15
  /// Borders found where the face matches this poorly are taken to have
  /// slipped when the face lines up well elsewhere.
  var appearanceMismatch = 0.5
  /// The face is taken from frames whose card has a shape residual below
  /// this (and strong borders), and used for this many seconds.
  var appearanceResidual = 0.015
  var appearanceAge = 1.0
  /// A card followed on borders that do not make a clear card is searched
  /// for afresh on the first such frame and every this many after.
  var recheckInterval = 3
  var regionLevel = 16.0
  var regionShare = 0.85
  var regionConsistency = 0.35
  /// An unclear side with no region step is still the card's end when
  /// faint steps (`faintLevel` levels or more, looked for `faintReach`
  /// pixels either side) at `faintShare` of the points along it line up
  /// (`faintTolerance`) within `faintOffset` pixels of it
  /// (`EdgeRefiner.faintStep`).
  var faintReach = 6
  var faintLevel = 0.75
  var faintShare = 0.65
  var faintOffset = 3.0
  /// How far (pixels) a faint step may stray from the others: 1.5 px, or
  /// 0.7 × the width (σ) of the card's clear steps when it is blurred.
  var faintTolerance = 1.5
  var faintBlurTolerance = 0.7

  /// A card found afresh must have edges on at least this share of the
  /// detector's pixels inside it (its border, `printInset` of its size,
  /// left out): rendered cards have 8% or more, plain shapes of the
  /// clutter that make a card's outline mostly under 6%.
  var minimumPrint = 0.06
  var printInset = 0.15

  /// How far a card's own focal length may be from the camera's assumed
  /// one (a factor): 60° assumed covers fields of view from 35° to 90°.
  var focalSpread = 1.8

  /// The card is looked for held in landscape, rolled at most this much.
  var maximumRoll = 60.0
  /// … and tilted at most this much on either axis (more, and the card is
  /// hardly readable; clutter makes such shapes far more often).
  var maximumTilt = 60.0

  /// The tuning the card estimator runs with.
  static let standard = CardTrackerTuning()
}
