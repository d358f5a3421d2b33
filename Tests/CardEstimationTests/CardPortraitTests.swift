import CardGeometry
import CardScenes
import Estimators
import FaceEstimation
import FaceEstimationTesting
import Foundation
import Imaging
import Measurements
import Settings
import TestSupport
import Testing

@testable import CardEstimation

/// Cards with a real face printed where the layout does not put the
/// portrait, rendered by the card scene renderer.
enum PortraitCards {
  /// Where the photo is printed (normalised card coordinates): on the right
  /// half, the size of the layout's portrait.
  static let placedPhoto = NormalizedRect(x: 0.62, y: 0.30, width: 0.28, height: 0.60)
  static let layout = CardLayout.hongKongIdentityCard.portrait

  /// The built-in card design with the layout's portrait (its drawn face)
  /// painted over unless `drawnFace`, and with `photo`, a head-and-shoulders
  /// photograph (obama-480.jpg cut to 3:4 around the head, as an ID photo
  /// frames it) at `placedPhoto`.
  static func texture(photo: Bool, drawnFace: Bool = false) throws -> CardTexture {
    let card = CardTexture().levels[0].copy()
    if !drawnFace { fill(card, layout, red: 226, green: 229, blue: 223) }
    if photo {
      let bytes = [UInt8](
        try Data(contentsOf: URL(fileURLWithPath: packageRoot() + "/Tests/Fixtures/frames/obama-480.jpg")))
      let decoded = ImageBuffer(format: .rgb8)
      try JPEGDecoder().decode(bytes, into: decoded, format: .rgb8)
      let head = ImageBuffer(format: .rgb8)
      try ImageConversion.crop(decoded, x: 145, y: 0, width: 225, height: 300, into: head)
      let (x, y, width, height) = texels(placedPhoto, in: card)
      let scaled = ImageBuffer(format: .rgb8)
      try ImageConversion.resize(head, width: width, height: height, into: scaled)
      for row in 0..<height {
        (card.pixels + ((y + row) * card.width + x) * 3).update(from: scaled.pixels + row * width * 3, count: width * 3)
      }
    }
    return try CardTexture(image: card)
  }

  static func texels(_ region: NormalizedRect, in image: ImageBuffer) -> (x: Int, y: Int, width: Int, height: Int) {
    let x = Int((region.x * Double(image.width)).rounded())
    let y = Int((region.y * Double(image.height)).rounded())
    return (
      x, y, Int((region.maxX * Double(image.width)).rounded()) - x,
      Int((region.maxY * Double(image.height)).rounded()) - y
    )
  }

  static func fill(_ image: ImageBuffer, _ region: NormalizedRect, red: UInt8, green: UInt8, blue: UInt8) {
    let (x, y, width, height) = texels(region, in: image)
    for row in y..<(y + height) {
      for column in x..<(x + width) {
        let pixel = image.pixels + (row * image.width + column) * 3
        pixel[0] = red
        pixel[1] = green
        pixel[2] = blue
      }
    }
  }

  /// How the frame reaches the estimators.
  enum Decoding: String, CaseIterable, Sendable {
    /// Colour and luma at the size captured (1280 × 720).
    case color
    /// Colour and luma decoded at half the size captured.
    case halfSize
    /// Luma only.
    case luma
  }

  /// The card, slightly turned, filmed at 1280 × 720, as a decoded frame.
  static func frame(_ texture: CardTexture, decoding: Decoding = .color) throws -> DecodedFrame {
    let scene = CardScene(
      schedule: CardSchedule(keyframes: [CardKeyframe(t: 0, tiltX: -8, tiltY: 12, distance: .widthRatio(0.55))]),
      options: CardSceneOptions(width: 1280, height: 720, seed: 3), texture: texture)
    var color = scene.render(frame: 0)
    if decoding == .halfSize {
      let half = ImageBuffer(format: .rgb8)
      try ImageConversion.resize(color, width: color.width / 2, height: color.height / 2, into: half)
      color = half
    }
    let frame = DecodedFrame()
    try ImageConversion.rgb8ToGray8(color, into: frame.gray)
    if decoding != .luma {
      frame.color.reshape(width: color.width, height: color.height, format: .rgb8)
      frame.color.pixels.update(from: color.pixels, count: color.byteCount)
      frame.hasColor = true
    }
    frame.sourceWidth = 1280
    frame.sourceHeight = 720
    return frame
  }

  /// Every card setting at its default, with `overrides`.
  static func settings(_ overrides: [String: SettingValue] = [:]) -> ResolvedSettings {
    ResolvedSettings(
      CardEstimatorSetup.settingDeclarations.map { declaration in
        ResolvedSetting(
          declaration: declaration, value: overrides[declaration.key] ?? declaration.defaultValue,
          source: overrides[declaration.key] == nil ? .builtin : .commandLine)
      })
  }

  /// The run's card estimator, prepared, having measured `frame`.
  static func estimator(
    _ frame: DecodedFrame, settings: ResolvedSettings = settings(), face: FaceEstimatorOptions?
  ) throws -> CardCaptureEstimator {
    let estimator = try #require(CardEstimatorSetup.make(settings: settings, face: face).first as? CardCaptureEstimator)
    try estimator.prepare(schema: MeasurementSchema())
    var measurements = MeasurementFrame(t: 0, index: 0)
    estimator.estimate(frame, into: &measurements)
    _ = try #require(estimator.card.lastObservation, "the card is found")
    return estimator
  }
}

/// Intersection over union of two regions of the card, by area in millimetres.
func intersectionOverUnion(_ a: NormalizedRect, _ b: NormalizedRect) -> Double {
  let width = max(0, min(a.maxX, b.maxX) - max(a.x, b.x))
  let height = max(0, min(a.maxY, b.maxY) - max(a.y, b.y))
  let shared = width * height
  return shared / (a.width * a.height + b.width * b.height - shared)
}

@Suite("Card portrait by face detection", .requires(FaceBackendInstall.requirement))
struct CardPortraitFaceTests {
  @Test(
    "a face printed on the right half of the card is the portrait, wherever the layout puts it",
    arguments: PortraitCards.Decoding.allCases)
  func faceAwayFromTheLayout(_ decoding: PortraitCards.Decoding) throws {
    let frame = try PortraitCards.frame(PortraitCards.texture(photo: true), decoding: decoding)
    let estimator = try PortraitCards.estimator(frame, face: FaceBackendInstall.options)
    let portrait = try #require(estimator.captureImage(named: "portrait", frame: frame))
    let location = try #require(estimator.lastPortrait)
    #expect(location.method == .face)
    #expect(estimator.captureImageMethod(named: "portrait") == "face")
    let face = try #require(location.face)
    let placed = PortraitCards.placedPhoto
    #expect(placed.contains(face.x + face.width / 2, face.y + face.height / 2), "face \(face)")
    let overlap = intersectionOverUnion(location.region, placed)
    #expect(overlap > 0.6, "portrait \(location.region), photo \(placed): IoU \(overlap)")
    #expect(intersectionOverUnion(location.region, PortraitCards.layout) == 0)
    #expect(portrait.height == CardPortraitLocator.portraitHeight)
    #expect(portrait.format == (decoding == .luma ? .gray8 : .rgb8))
    // An ID photo's proportions: about 3:4, as the layout's portrait.
    let aspect = Double(portrait.width) / Double(portrait.height)
    #expect(abs(aspect - 0.74) < 0.03, "\(portrait.width) × \(portrait.height)")
    // The rectified card stays what it was.
    let card = try #require(estimator.captureImage(named: "card", frame: frame))
    #expect(card.width == 428 && card.height == 270 && card.format == .gray8)
  }

  @Test("the built-in card's drawn face, where the layout puts the portrait, is found there")
  func drawnFace() throws {
    let frame = try PortraitCards.frame(CardTexture())
    let estimator = try PortraitCards.estimator(frame, face: FaceBackendInstall.options)
    _ = try #require(estimator.captureImage(named: "portrait", frame: frame))
    let location = try #require(estimator.lastPortrait)
    #expect(location.method == .face)
    let region = location.region
    let layout = PortraitCards.layout
    #expect(region.x >= layout.x && region.maxX <= layout.maxX && region.y >= layout.y && region.maxY <= layout.maxY)
    #expect(intersectionOverUnion(region, layout) > 0.4, "\(region)")
  }

  @Test("two faces on the card: the one nearest the layout's portrait")
  func twoFaces() throws {
    let frame = try PortraitCards.frame(PortraitCards.texture(photo: true, drawnFace: true))
    let estimator = try PortraitCards.estimator(frame, face: FaceBackendInstall.options)
    _ = try #require(estimator.captureImage(named: "portrait", frame: frame))
    let location = try #require(estimator.lastPortrait)
    #expect(location.method == .face)
    #expect(intersectionOverUnion(location.region, PortraitCards.layout) > 0.4, "\(location.region)")
    #expect(intersectionOverUnion(location.region, PortraitCards.placedPhoto) == 0)
  }

  @Test("a card without a face: the layout's portrait, in colour")
  func noFace() throws {
    let frame = try PortraitCards.frame(PortraitCards.texture(photo: false))
    let estimator = try PortraitCards.estimator(frame, face: FaceBackendInstall.options)
    let portrait = try #require(estimator.captureImage(named: "portrait", frame: frame))
    #expect(estimator.lastPortrait == .init(region: PortraitCards.layout, method: .layout, face: nil))
    #expect(estimator.captureImageMethod(named: "portrait") == "layout")
    #expect(portrait.format == .rgb8 && portrait.height == CardPortraitLocator.portraitHeight)
  }

  @Test("card.portrait_locate = layout: the layout's portrait even with a face on the card")
  func layoutSetting() throws {
    let frame = try PortraitCards.frame(PortraitCards.texture(photo: true))
    let estimator = try PortraitCards.estimator(
      frame, settings: PortraitCards.settings(["card.portrait_locate": .string("layout")]),
      face: FaceBackendInstall.options)
    #expect(!estimator.portraits.usesFaces)
    _ = try #require(estimator.captureImage(named: "portrait", frame: frame))
    #expect(estimator.lastPortrait == .init(region: PortraitCards.layout, method: .layout, face: nil))
  }
}

extension ScriptedFace {
  /// A face filling `region` of the image the backend is given.
  static func box(_ region: NormalizedRect) -> ScriptedFace {
    .box(x: region.x, y: region.y, width: region.width, height: region.height)
  }
}

@Suite("Card portrait: choosing and framing the face")
struct CardPortraitLocatorTests {
  let layout = CardLayout.hongKongIdentityCard.portrait

  /// A frame of the built-in card (no face backend needed).
  func frame() throws -> (DecodedFrame, [Point2]) {
    let frame = try PortraitCards.frame(CardTexture())
    let estimator = try PortraitCards.estimator(frame, face: nil)
    return (frame, try #require(estimator.card.lastObservation).corners)
  }

  @Test("of several faces, the one nearest the layout's portrait; the box is an ID photo's around it, on the card")
  func nearestFace() throws {
    let (frame, corners) = try frame()
    let far = NormalizedRect(x: 0.70, y: 0.35, width: 0.14, height: 0.30)
    let near = NormalizedRect(x: 0.40, y: 0.45, width: 0.12, height: 0.26)
    // Nothing around the layout's portrait; two faces on the whole card.
    let backend = ScriptedFaceBackend(faces: [[], [.box(far), .box(near)]])
    let locator = CardPortraitLocator(layout: layout) { () throws(FaceBackendError) -> any FaceBackend in backend }
    let portrait = ImageBuffer(format: .rgb8)
    let location = try #require(locator.locate(in: frame, corners: corners, into: portrait))
    #expect(location.method == .face)
    let face = try #require(location.face)
    #expect(abs(face.x - near.x) < 0.005 && abs(face.maxY - near.maxY) < 0.005, "\(face)")
    // Around the layout's portrait (x 0–0.47), then the whole card, at 8 px/mm; timestamps of its own, growing.
    #expect(backend.calls.map(\.width) == [322, 685])
    #expect(backend.calls.map(\.timestamp) == [1, 2])
    // Face-mesh heights: 0.45 above, 0.35 below; 3:4 like the layout's portrait, centred on the face.
    let region = location.region
    let faceHeight = near.height * CardFormat.height
    #expect(abs(region.height * CardFormat.height - faceHeight * 1.8) < 0.01)
    #expect(abs((near.y - region.y) * CardFormat.height - 0.45 * faceHeight) < 0.01)
    let aspect = region.width * CardFormat.width / (region.height * CardFormat.height)
    #expect(abs(aspect - (layout.width * CardFormat.width) / (layout.height * CardFormat.height)) < 0.001)
    #expect(abs(region.x + region.width / 2 - (near.x + near.width / 2)) < 0.001)
    #expect(portrait.height == 256 && portrait.format == .rgb8)
  }

  @Test("a face near the card's edge: the box is moved onto the card")
  func clampedToTheCard() {
    let face = NormalizedRect(x: 0.85, y: 0.05, width: 0.14, height: 0.30)
    let region = CardPortraitLocator.portraitBox(around: face, aspect: 0.74)
    #expect(region.x >= 0 && region.y >= 0 && region.maxX <= 1 + 1e-9 && region.maxY <= 1 + 1e-9)
    #expect(abs(region.maxX - 1) < 1e-9 && abs(region.y) < 1e-9)
    // Still the whole face.
    #expect(region.x <= face.x && region.maxY >= face.maxY)
  }

  @Test("no face: the layout; the backend starts at the first portrait asked for, once, and every window is searched")
  func lazyBackend() throws {
    let (frame, corners) = try frame()
    var starts = 0
    let backend = ScriptedFaceBackend(faces: [])
    let locator = CardPortraitLocator(layout: layout) { () throws(FaceBackendError) -> any FaceBackend in
      starts += 1
      return backend
    }
    #expect(starts == 0)
    let portrait = ImageBuffer(format: .rgb8)
    for _ in 0..<2 {
      let location = locator.locate(in: frame, corners: corners, into: portrait)
      #expect(location == .init(region: layout, method: .layout, face: nil))
    }
    #expect(starts == 1)
    #expect(backend.calls.count == 2 * locator.searchWindows.count)
    #expect(backend.calls.map(\.timestamp) == Array(1...8))
  }

  @Test("a backend that does not start: the layout, and it is not tried again")
  func backendFailsToStart() throws {
    let (frame, corners) = try frame()
    var starts = 0
    let locator = CardPortraitLocator(layout: layout) { () throws(FaceBackendError) -> any FaceBackend in
      starts += 1
      throw FaceBackendError(.libraryUnavailable, "no library here")
    }
    let portrait = ImageBuffer(format: .rgb8)
    #expect(locator.locate(in: frame, corners: corners, into: portrait)?.method == .layout)
    #expect(locator.locate(in: frame, corners: corners, into: portrait)?.method == .layout)
    #expect(starts == 1)
  }

  @Test("the run's card estimator uses faces only with the backend installed and card.portrait_locate = face")
  func settings() throws {
    let installed = FaceEstimators.options(home: "/nowhere", environment: [:])
    func usesFaces(_ settings: ResolvedSettings?, _ face: FaceEstimatorOptions?) throws -> Bool {
      try #require(CardEstimatorSetup.make(settings: settings, face: face).first as? CardCaptureEstimator).portraits
        .usesFaces
    }
    #expect(try usesFaces(PortraitCards.settings(), installed))
    #expect(try usesFaces(nil, installed))
    #expect(try !usesFaces(PortraitCards.settings(["card.portrait_locate": .string("layout")]), installed))
    #expect(try !usesFaces(PortraitCards.settings(), nil))
    let declaration = try #require(CardEstimatorSetup.settingDeclarations.first { $0.key == "card.portrait_locate" })
    #expect(declaration.defaultValue == .string("face"))
  }

  @Test("without a backend the portrait is the layout's, in colour, and the card image stays gray 428 × 270")
  func layoutOnly() throws {
    let frame = try PortraitCards.frame(CardTexture())
    let estimator = try PortraitCards.estimator(frame, face: nil)
    let portrait = try #require(estimator.captureImage(named: "portrait", frame: frame))
    #expect(estimator.captureImageMethod(named: "portrait") == "layout")
    #expect(portrait.format == .rgb8 && portrait.height == 256)
    #expect(abs(Double(portrait.width) / 256 - (0.28 * CardFormat.width) / (0.60 * CardFormat.height)) < 0.01)
    #expect(estimator.captureImageMethod(named: "card") == nil)
    let card = try #require(estimator.captureImage(named: "card", frame: frame))
    #expect(card.width == 428 && card.height == 270 && card.format == .gray8)
  }
}
