import CardEstimation
import CardGeometry
import Estimators
import Imaging
import Measurements
import Settings

/// The card estimator in a run: its settings, and the images it gives to
/// captures (the rectified card and the portrait cropped from it).
public enum CardEstimators {
  public static let settingDeclarations: [SettingDeclaration] = [
    .number(
      "card.focal_length", default: 0, minimum: 0, maximum: 100_000, unit: "px",
      doc: "The camera's focal length in pixels of the frame as captured; 0 assumes a 60° horizontal field of view"),
    .boolean(
      "card.mirror", default: false, doc: "The frames are mirrored (a selfie preview): tilt_y and roll change sign"),
    .number(
      "card.min_width_ratio", default: 0.12, minimum: 0.02, maximum: 1,
      doc: "The narrowest card looked for, as a share of the frame width"),
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
    return CardEstimatorSettings(
      focalLength: focal > 0 ? focal : nil, mirror: settings?.boolean("card.mirror") ?? false,
      minimumWidthRatio: settings?.number("card.min_width_ratio") ?? 0.12,
      glareLevel: UInt8(clamping: settings?.integer("card.glare_level") ?? 250), layout: layout)
  }

  public static func make(settings: ResolvedSettings?) -> [any Estimator] {
    [CardCaptureEstimator(CardEstimator(settings: estimatorSettings(settings)))]
  }
}

/// The card estimator, handing its rectified card and portrait to captures.
final class CardCaptureEstimator: Estimator, CaptureImageProvider {
  let card: CardEstimator
  private let portrait = ImageBuffer(format: .gray8)

  init(_ card: CardEstimator) { self.card = card }

  var descriptor: EstimatorDescriptor { card.descriptor }
  func prepare(schema: MeasurementSchema) throws(EstimatorError) { try card.prepare(schema: schema) }
  func estimate(_ frame: DecodedFrame, into measurements: inout MeasurementFrame) {
    card.estimate(frame, into: &measurements)
  }

  var captureImageNames: [String] { ["card", "portrait"] }

  func captureImage(named name: String, frame: DecodedFrame) -> ImageBuffer? {
    guard card.lastObservation != nil else { return nil }
    switch name {
    case "card": return card.lastRectified
    case "portrait": return card.cropPortrait(into: portrait) ? portrait : nil
    default: return nil
    }
  }
}
