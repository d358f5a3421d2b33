import CardEstimation
import CardGeometry
import Estimators
import FaceEstimation
import Imaging
import JSONCore
import Logging
import Measurements
import Settings

/// The card estimator in a run: its settings, and the images it gives to
/// captures (the rectified card and the portrait cropped from it).
public enum CardEstimatorSetup {
  public static let settingDeclarations: [SettingDeclaration] = [
    .number(
      "card.focal_length", default: 0, minimum: 0, maximum: 100_000, unit: "px",
      doc:
        "The camera's focal length in pixels of the frame as captured; 0: card.field_of_view, else the recording's, else estimated from the card"
    ),
    .number(
      "card.field_of_view", default: 0, minimum: 0, maximum: 170, unit: "deg",
      doc:
        "The camera's horizontal field of view, when card.focal_length is 0; 0: the recording's, else estimated from the card (60° until it is tilted)"
    ),
    .boolean(
      "card.estimate_focal", default: true,
      doc:
        "Estimate an unknown focal length from the card once it is tilted (off: a 60° horizontal field of view)"),
    .boolean(
      "card.mirror", default: false, doc: "The frames are mirrored (a selfie preview): tilt_y and roll change sign"),
    .number(
      "card.min_width_ratio", default: 0.12, minimum: 0.02, maximum: 1,
      doc: "The narrowest card looked for, as a share of the frame width"),
    .boolean(
      "card.follow_face", default: true,
      doc:
        "Follow a card by what is printed on it in frames where its borders cannot be found or slipped onto another line"
    ),
    .integer(
      "card.glare_level", default: 250, minimum: 1, maximum: 255,
      doc: "Luma at and above which a pixel of the card counts as glare (card.glare)"),
    .number(
      "card.portrait_x", default: CardLayout.hongKongIdentityCard.portrait.x, minimum: 0, maximum: 1,
      doc: "Left edge of the portrait on the card, as a share of its width (HK identity card: 0.05)"),
    .number(
      "card.portrait_y", default: CardLayout.hongKongIdentityCard.portrait.y, minimum: 0, maximum: 1,
      doc: "Top edge of the portrait on the card, as a share of its height"),
    .number(
      "card.portrait_width", default: CardLayout.hongKongIdentityCard.portrait.width, minimum: 0.01, maximum: 1,
      doc: "Width of the portrait, as a share of the card's width"),
    .number(
      "card.portrait_height", default: CardLayout.hongKongIdentityCard.portrait.height, minimum: 0.01, maximum: 1,
      doc: "Height of the portrait, as a share of the card's height"),
    .choice(
      "card.portrait_locate", ["face", "layout"], default: "face",
      doc:
        "How a capture's portrait is found: around the face on the card (by the layout when the face backend is not installed or finds none), or by the layout (card.portrait_*)"
    ),
  ]

  /// The estimator settings a run's settings give.
  public static func estimatorSettings(_ settings: ResolvedSettings?) -> CardEstimatorSettings {
    var layout = CardLayout.hongKongIdentityCard
    if let settings {
      layout.portrait = NormalizedRect(
        x: settings.number("card.portrait_x") ?? layout.portrait.x,
        y: settings.number("card.portrait_y") ?? layout.portrait.y,
        width: settings.number("card.portrait_width") ?? layout.portrait.width,
        height: settings.number("card.portrait_height") ?? layout.portrait.height)
    }
    let focal = settings?.number("card.focal_length") ?? 0
    let fieldOfView = settings?.number("card.field_of_view") ?? 0
    return CardEstimatorSettings(
      focalLength: focal > 0 ? focal : nil, horizontalFieldOfView: fieldOfView > 0 ? fieldOfView : nil,
      mirror: settings?.boolean("card.mirror") ?? false,
      minimumWidthRatio: settings?.number("card.min_width_ratio") ?? 0.12,
      glareLevel: UInt8(clamping: settings?.integer("card.glare_level") ?? 250), layout: layout,
      followsFace: settings?.boolean("card.follow_face") ?? true,
      calibratesFocalLength: settings?.boolean("card.estimate_focal") ?? true)
  }

  /// The card estimator for a run. `face`: the face backend's options when
  /// it is installed; then a capture's portrait is found by face detection
  /// (with a landmarker of its own, started at the first capture) unless
  /// `card.portrait_locate` is "layout".
  public static func make(
    settings: ResolvedSettings?, face: FaceEstimatorOptions? = nil, logger: Logger = Logger(label: "workbench.card")
  ) -> [any Estimator] {
    let card = CardEstimator(settings: estimatorSettings(settings))
    var makeBackend: (() throws(FaceBackendError) -> any FaceBackend)?
    if let face, (settings?.string("card.portrait_locate") ?? "face") == "face" {
      var options = face.backend
      // Each capture's card is a still image of its own: nothing to follow between them.
      options.tracksFaces = false
      // The locator chooses its own windows of the card, each large in the detector's view.
      options.searchTiles = 0
      makeBackend = { () throws(FaceBackendError) -> any FaceBackend in
        try MediaPipeFaceBackend(options: options, logger: logger)
      }
    }
    let portraits = CardPortraitLocator(layout: card.settings.layout.portrait, logger: logger, makeBackend: makeBackend)
    return [CardCaptureEstimator(card, portraits: portraits)]
  }
}

/// The card estimator, handing its rectified card and portrait to captures.
final class CardCaptureEstimator: Estimator, CaptureImageProvider {
  let card: CardEstimator
  let portraits: CardPortraitLocator
  private let portrait = ImageBuffer(format: .rgb8)
  /// How the last portrait given was found.
  private(set) var lastPortrait: CardPortraitLocator.Location?

  init(_ card: CardEstimator, portraits: CardPortraitLocator) {
    self.card = card
    self.portraits = portraits
  }

  var descriptor: EstimatorDescriptor { card.descriptor }
  func prepare(schema: MeasurementSchema) throws(EstimatorError) { try card.prepare(schema: schema) }
  func estimate(_ frame: DecodedFrame, into measurements: inout MeasurementFrame) {
    card.estimate(frame, into: &measurements)
  }

  var captureImageNames: [String] { ["card", "portrait"] }

  func captureImage(named name: String, frame: DecodedFrame) -> ImageBuffer? {
    guard let observation = card.lastObservation else { return nil }
    switch name {
    case "card": return card.lastRectified
    case "portrait":
      lastPortrait = portraits.locate(in: frame, corners: observation.corners, into: portrait)
      return lastPortrait == nil ? nil : portrait
    default: return nil
    }
  }

  func captureImageMethod(named name: String) -> String? {
    name == "portrait" ? lastPortrait?.method.rawValue : nil
  }
}

extension CardCaptureEstimator: OverlayDrawing {
  func overlay() -> JSONObject { card.overlay() }
}
