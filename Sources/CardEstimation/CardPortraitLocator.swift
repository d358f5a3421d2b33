import CardEstimation
import CardGeometry
import Estimators
import FaceEstimation
import Foundation
import Imaging
import Logging

/// How the portrait of a capture was found on the card.
enum PortraitMethod: String, Sendable {
  /// Around the face the face backend found on the card.
  case face
  /// Where the card's layout (the `card.portrait_*` settings) puts it.
  case layout
}

/// Finds the holder's photo on a captured card and cuts it out of the
/// frame, in colour when the frame has colour: around the face a face
/// backend finds on the card, else where the layout puts it (docs/card.md,
/// "The portrait"). It works only when a capture asks for the portrait,
/// never on the per-frame path, and starts its backend at the first request.
final class CardPortraitLocator {
  /// Height of the portrait image, pixels (its width follows the box).
  static let portraitHeight = 256
  /// Pixels per card millimetre of the images searched for a face: the
  /// whole card is 685 × 432, and a portrait's face (some 15 mm high) 120 px,
  /// enough for the landmark model, which looks at a face at 256 × 256.
  static let searchScale = 8.0
  /// The portrait around a face, in face-mesh heights (the mesh runs from
  /// the upper forehead to the chin): room for the hair above and the neck
  /// below, as an ID photo frames a head (the head some 70 % of its height).
  static let marginAbove = 0.45
  static let marginBelow = 0.35
  /// The portrait's width over its height, from the layout's portrait (3:4
  /// on the HK identity card), kept within these bounds.
  static let aspectRange = 0.6...1.0

  let layout: NormalizedRect
  private let makeBackend: (() throws(FaceBackendError) -> any FaceBackend)?
  private var backend: (any FaceBackend)?
  private var backendFailed = false
  /// A backend in video mode needs growing timestamps; these are the
  /// locator's own, one per search, unrelated to the run's clock.
  private var timestamp: Int64 = 0
  private var detections = FaceDetections()
  /// A search window of the card, in the frame's format, and as rgb8 for
  /// the backend when the frame is luma only.
  private let searchImage = ImageBuffer(format: .rgb8)
  private let searchImageRGB = ImageBuffer(format: .rgb8)
  private let logger: Logger

  /// What `locate` found: the portrait's box in normalised card
  /// coordinates, how it was found, and the face's box when by face.
  struct Location: Equatable {
    var region: NormalizedRect
    var method: PortraitMethod
    var face: NormalizedRect?
  }

  /// Whether portraits are looked for by face (there is a backend to start).
  var usesFaces: Bool { makeBackend != nil }

  /// `makeBackend` nil: the layout only (no face backend installed, or
  /// `card.portrait_locate` is "layout").
  init(
    layout: NormalizedRect, logger: Logger = Logger(label: "workbench.card"),
    makeBackend: (() throws(FaceBackendError) -> any FaceBackend)?
  ) {
    self.layout = layout
    self.logger = logger
    self.makeBackend = makeBackend
  }

  /// Cuts the portrait of the card with `corners` (printed order, pixels of
  /// the frame as captured) out of `frame` into `portrait`; nil when the
  /// card cannot be sampled.
  func locate(in frame: DecodedFrame, corners: [Point2], into portrait: ImageBuffer) -> Location? {
    let source = frame.hasColor && frame.color.width > 0 ? frame.color : frame.gray
    guard source.width >= 2, source.height >= 2, corners.count == 4 else { return nil }
    // Corners are in pixels of the frame as captured; the decoded frame may be smaller.
    let scaleX = Double(source.width) / Double(frame.sourceWidth > 0 ? frame.sourceWidth : source.width)
    let scaleY = Double(source.height) / Double(frame.sourceHeight > 0 ? frame.sourceHeight : source.height)
    let inSource = corners.map { Point2(($0.x + 0.5) * scaleX - 0.5, ($0.y + 0.5) * scaleY - 0.5) }
    guard let card = Homography(from: CardFormat.corners, to: inSource) else { return nil }

    var location = Location(region: Self.clampedToCard(layout), method: .layout, face: nil)
    if let face = findFace(source, card: card) {
      location = Location(region: Self.portraitBox(around: face, aspect: aspect), method: .face, face: face)
    }
    let region = location.region
    guard region.width > 0, region.height > 0 else { return nil }
    let height = Self.portraitHeight
    let width = max(1, Int((Double(height) * millimetres(region).width / millimetres(region).height).rounded()))
    guard Self.sample(source, card: card, region: region, width: width, height: height, into: portrait) else {
      return nil
    }
    if let face = location.face {
      logger.debug("card portrait: by face, \(Self.describe(region)) of the card (face \(Self.describe(face)))")
    } else {
      logger.debug("card portrait: by layout, \(Self.describe(region)) of the card")
    }
    return location
  }

  /// The layout portrait's width over its height, in millimetres.
  private var aspect: Double {
    let size = millimetres(layout)
    return min(Self.aspectRange.upperBound, max(Self.aspectRange.lowerBound, size.width / max(size.height, 1e-9)))
  }

  private func millimetres(_ region: NormalizedRect) -> (width: Double, height: Double) {
    (region.width * CardFormat.width, region.height * CardFormat.height)
  }

  /// Where to look for a face, in order, until one shows one: around the
  /// layout's portrait (where it is on the cards the layout describes, and
  /// large in the detector's view, which is 128 × 128 whatever the image),
  /// the whole card, then each half (a smaller face elsewhere).
  var searchWindows: [NormalizedRect] {
    let grown = Self.clampedToCard(
      NormalizedRect(
        x: layout.x - layout.width / 2, y: layout.y - layout.height / 2, width: layout.width * 2,
        height: layout.height * 2))
    return [
      grown, NormalizedRect(x: 0, y: 0, width: 1, height: 1), NormalizedRect(x: 0, y: 0, width: 0.5, height: 1),
      NormalizedRect(x: 0.5, y: 0, width: 0.5, height: 1),
    ]
  }

  /// The box (normalised card coordinates) of the face nearest the
  /// layout's portrait, from the first search window that shows a face;
  /// nil without a backend or a face.
  private func findFace(_ source: ImageBuffer, card: Homography) -> NormalizedRect? {
    guard let backend = startedBackend() else { return nil }
    let target = (x: layout.x + layout.width / 2, y: layout.y + layout.height / 2)
    for search in searchWindows {
      let width = max(16, Int((search.width * CardFormat.width * Self.searchScale).rounded()))
      let height = max(16, Int((search.height * CardFormat.height * Self.searchScale).rounded()))
      // An empty window (a layout off the card) has nothing to show.
      guard Self.sample(source, card: card, region: search, width: width, height: height, into: searchImage) else {
        continue
      }
      let image: ImageBuffer
      if searchImage.format == .rgb8 {
        image = searchImage
      } else {
        // A luma-only frame: the backend takes rgb8, and gray as RGB still shows faces.
        guard (try? ImageConversion.gray8ToRGB8(searchImage, into: searchImageRGB)) != nil else { return nil }
        image = searchImageRGB
      }
      timestamp += 1
      do {
        try backend.detect(image, timestampMilliseconds: timestamp, into: &detections)
      } catch {
        logger.warning("card portrait: the face backend failed (\(error.message)); the layout's portrait is used")
        return nil
      }
      var best: (box: NormalizedRect, distance: Double)?
      for face in detections.valid where !face.landmarks.isEmpty {
        let box = FaceGeometry.box(of: face.landmarks)
        guard box.width > 0, box.height > 0 else { continue }
        // Window pixels (MediaPipe's: 0 at the left edge) to card coordinates.
        let normalized = NormalizedRect(
          x: search.x + box.x / Double(width) * search.width, y: search.y + box.y / Double(height) * search.height,
          width: box.width / Double(width) * search.width, height: box.height / Double(height) * search.height)
        let dx = (normalized.x + normalized.width / 2 - target.x) * CardFormat.width
        let dy = (normalized.y + normalized.height / 2 - target.y) * CardFormat.height
        let distance = (dx * dx + dy * dy).squareRoot()
        if distance < best?.distance ?? .infinity { best = (normalized, distance) }
      }
      if let best { return best.box }
    }
    return nil
  }

  /// The backend, started at the first request; nil when there is none or
  /// it cannot start (said once).
  private func startedBackend() -> (any FaceBackend)? {
    if let backend { return backend }
    guard let makeBackend, !backendFailed else { return nil }
    do {
      let started = try makeBackend()
      backend = started
      return started
    } catch {
      backendFailed = true
      let help = error.help.map { " (\($0))" } ?? ""
      logger.warning(
        "card portrait: the face backend does not start (\(error.message)); portraits are cut by the layout\(help)")
      return nil
    }
  }

  /// An ID photo's box around `face` (normalised card coordinates): the
  /// margins above and below, `aspect` wide over high, centred on the face,
  /// then moved (and if need be shrunk) to lie on the card.
  static func portraitBox(around face: NormalizedRect, aspect: Double) -> NormalizedRect {
    let faceTop = face.y * CardFormat.height
    let faceHeight = face.height * CardFormat.height
    let height = min(CardFormat.height, faceHeight * (1 + marginAbove + marginBelow))
    let width = min(CardFormat.width, height * aspect)
    let centreX = (face.x + face.width / 2) * CardFormat.width
    let left = max(0, min(CardFormat.width - width, centreX - width / 2))
    let top = max(0, min(CardFormat.height - height, faceTop - marginAbove * faceHeight))
    return NormalizedRect(
      x: left / CardFormat.width, y: top / CardFormat.height, width: width / CardFormat.width,
      height: height / CardFormat.height)
  }

  /// The part of `region` on the card (`region` itself when it lies on it).
  static func clampedToCard(_ region: NormalizedRect) -> NormalizedRect {
    guard region.x < 0 || region.y < 0 || region.maxX > 1 || region.maxY > 1 else { return region }
    let x = max(0, region.x)
    let y = max(0, region.y)
    return NormalizedRect(x: x, y: y, width: min(1, region.maxX) - x, height: min(1, region.maxY) - y)
  }

  /// Samples `region` (normalised card coordinates) of the card that
  /// `card` maps (millimetres to pixels of `source`) into `destination`,
  /// `width` × `height`, in `source`'s format: one resampling of the frame,
  /// perspective removed.
  static func sample(
    _ source: ImageBuffer, card: Homography, region: NormalizedRect, width: Int, height: Int,
    into destination: ImageBuffer
  ) -> Bool {
    guard region.width > 0, region.height > 0, width > 0, height > 0 else { return false }
    let corners = [(region.x, region.y), (region.maxX, region.y), (region.maxX, region.maxY), (region.x, region.maxY)]
      .map { card.apply(Point2(($0.0 - 0.5) * CardFormat.width, ($0.1 - 0.5) * CardFormat.height)) }
    // The map from the whole card onto the region's corners is the card's, narrowed to the region.
    guard let narrowed = Homography(from: CardFormat.corners, to: corners) else { return false }
    destination.reshape(width: width, height: height, format: source.format)
    CardEstimator.rectify(source, homography: narrowed, into: destination)
    return true
  }

  private static func describe(_ region: NormalizedRect) -> String {
    String(format: "x %.2f–%.2f, y %.2f–%.2f", region.x, region.maxX, region.y, region.maxY)
  }
}
