/// The ID-1 card format (ISO/IEC 7810): bank cards, most identity cards.
public enum CardFormat {
  /// Millimetres.
  public static let width = 85.60
  public static let height = 53.98
  public static let cornerRadius = 3.18
  /// Width over height, ≈ 1.586.
  public static let aspectRatio = width / height

  /// The four corners in card millimetres, centre at the origin, x to the
  /// right and y down as printed: top-left, top-right, bottom-right,
  /// bottom-left (the order of every corner list of workbench).
  public static var corners: [Point2] {
    let halfWidth = width / 2
    let halfHeight = height / 2
    return [
      Point2(-halfWidth, -halfHeight), Point2(halfWidth, -halfHeight), Point2(halfWidth, halfHeight),
      Point2(-halfWidth, halfHeight),
    ]
  }
}

/// A rectangle in normalised card coordinates: (0, 0) is the printed
/// top-left corner, (1, 1) the bottom-right.
public struct NormalizedRect: Sendable, Equatable {
  public var x: Double
  public var y: Double
  public var width: Double
  public var height: Double

  public init(x: Double, y: Double, width: Double, height: Double) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }

  public var maxX: Double { x + width }
  public var maxY: Double { y + height }

  public func contains(_ u: Double, _ v: Double) -> Bool { u >= x && u < maxX && v >= y && v < maxY }
}

/// Where things are printed on a card, in normalised card coordinates.
/// The default is the layout of the Hong Kong identity card: the portrait
/// on the left, below a header band. Flows and settings name these regions
/// (for instance to crop the portrait from the rectified card).
public struct CardLayout: Sendable, Equatable {
  /// The photo of the holder.
  public var portrait: NormalizedRect
  /// The coloured band across the top (the issuer's name).
  public var header: NormalizedRect
  /// The block of printed text right of the portrait.
  public var text: NormalizedRect

  public init(portrait: NormalizedRect, header: NormalizedRect, text: NormalizedRect) {
    self.portrait = portrait
    self.header = header
    self.text = text
  }

  /// The Hong Kong identity card: portrait x 0.05–0.33, y 0.30–0.90.
  public static let hongKongIdentityCard = CardLayout(
    portrait: NormalizedRect(x: 0.05, y: 0.30, width: 0.28, height: 0.60),
    header: NormalizedRect(x: 0, y: 0, width: 1, height: 0.2),
    text: NormalizedRect(x: 0.38, y: 0.30, width: 0.57, height: 0.60))
}
