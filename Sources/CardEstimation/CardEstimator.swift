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
/// (docs/card.md). One instance per run, used from one thread. The
/// finding and following are `CardTracker`'s; this gives its measurements
/// and the card's image.
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
  private let tracker: CardTracker
  private var nodes: [String: Int] = [:]
  private var tableNodes: [Int] = []

  /// The focal length the frame's source gave (`DecodedFrame.focalLength`).
  public var sourceFocalLength: Double? {
    get { tracker.sourceFocalLength }
    set { tracker.sourceFocalLength = newValue }
  }
  /// The focal length estimated from the card so far, pixels of the frame
  /// as captured; nil before the card has been tilted enough.
  public var estimatedFocalLength: Double? { tracker.estimatedFocalLength }

  /// The card is looked for held in landscape, rolled at most this much (degrees).
  public static let maximumRoll = CardTrackerTuning.standard.maximumRoll
  /// … and tilted at most this much on either axis (`CardTrackerTuning`).
  public static let maximumTilt = CardTrackerTuning.standard.maximumTilt

  public static let measurementNames = [
    "found", "corners.1.x", "corners.1.y", "corners.2.x", "corners.2.y", "corners.3.x", "corners.3.y", "corners.4.x",
    "corners.4.y", "width_ratio", "size_ratio", "focal_length", "distance_mm", "tilt_x", "tilt_y", "roll", "speed",
    "glare", "blur", "confidence",
  ]

  public init(settings: CardEstimatorSettings = CardEstimatorSettings(), prefix: String = "card") {
    self.settings = settings
    self.prefix = prefix
    tracker = CardTracker(settings: settings)
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
    tracker.reset()
    lastObservation = nil
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
    guard let sighting = tracker.track(gray: gray, color: color, t: t, sourceWidth: sourceWidth) else { return nil }
    rectifySource = gray
    lastHomography = sighting.homography
    lastGray = gray
    lastToSource = sighting.toSource
    lastObservation = sighting.observation
    return sighting.observation
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
