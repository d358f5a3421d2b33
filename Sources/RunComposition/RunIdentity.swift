import Crypto
import Estimators
import FaceRecognition
import Flows
import Foundation
import Gallery
import Imaging
import JSONCore
import Session
import Settings

/// Who the faces of a run are: descriptors of the frame being processed,
/// kept by name for the flow, and the gallery the flow enrolls into and
/// searches (the setting gallery.location, opened on first use). Answers
/// are tables for the flow; failures are answers with an `error` name
/// (docs/gallery.md), so that a flow can end with its own result code.
final class RunIdentity: FaceIdentity {
  private let describer: FaceDescriptorEstimator
  private let estimators: [any Estimator]
  private let currentFrame: () -> DecodedFrame
  private let location: String
  /// No gallery was named: the user's own, whose folder may not exist yet.
  private let isDefaultLocation: Bool
  private let threshold: Float
  private var gallery: Gallery?
  private var kept: [String: NewFace] = [:]
  /// With --artifacts: the faces of each comparison are kept there, for the
  /// report to show side by side.
  private let artifacts: ArtifactFolder?
  private var comparisons = 0

  init(describer: FaceDescriptorEstimator, context: IdentityContext) {
    self.describer = describer
    estimators = context.estimators
    currentFrame = context.currentFrame
    artifacts = context.artifacts
    let named = context.settings.string("gallery.location") ?? ""
    location = named.isEmpty ? WorkbenchHome.defaultGallery() : named
    isDefaultLocation = named.isEmpty
    threshold = Float(context.settings.number("gallery.threshold") ?? Double(Gallery.defaultThreshold))
  }

  /// The run's identity, when its steps need descriptors (the run has the
  /// descriptor estimator).
  public static func make(_ context: IdentityContext) -> (any FaceIdentity)? {
    guard let describer = context.estimators.lazy.compactMap({ $0 as? FaceDescriptorEstimator }).first else {
      return nil
    }
    return RunIdentity(describer: describer, context: context)
  }

  func describe(_ name: String, source: String) -> JSONObject {
    let decoded = currentFrame()
    do {
      let described: DescribedFace
      let pixels: ImageBuffer
      if source == "portrait" {
        guard let portrait = portraitImage(decoded) else {
          return Self.failure("no_portrait", "the frame has no card portrait to describe")
        }
        described = try describer.describeSingleFace(in: portrait)
        pixels = portrait
      } else {
        described = try describer.describeLargestFace(in: decoded)
        pixels = decoded.color
      }
      kept[name] = NewFace(
        descriptor: described.descriptor, imageSHA256: Self.sha256(pixels),
        source: "frame \(decoded.index) (\(source))", chip: described.chip)
      return JSONObject([("found", .bool(true)), ("frame", .integer(decoded.index))])
    } catch {
      var answer = Self.failure(GalleryFailure(error).name.rawValue, error.message)
      answer["found"] = .bool(false)
      return answer
    }
  }

  func perform(_ operation: String, _ arguments: JSONObject) -> JSONObject {
    do throws(GalleryFailure) {
      switch operation {
      case "compare": return try compare(arguments)
      case "enroll": return try enroll(arguments)
      case "add_faces": return try addFaces(arguments)
      case "verify": return try verify(arguments)
      default: return try identify(arguments)
      }
    } catch {
      return Self.failure(error.name.rawValue, error.message)
    }
  }

  private func compare(_ arguments: JSONObject) throws(GalleryFailure) -> JSONObject {
    let names = (arguments["faces"]?.arrayValue ?? []).compactMap(\.stringValue)
    guard names.count == 2 else {
      throw GalleryFailure(.missingImage, "compare needs two described faces: faces = { \"live\", \"card\" }")
    }
    let (first, second) = (try face(names[0]), try face(names[1]))
    var fields = Self.matchFields(
      FaceMatch(distance: first.descriptor.distance(to: second.descriptor), threshold: threshold))
    fields["images"] = keep("compare", [(names[0], first.chip), (names[1], second.chip)])
    return fields
  }

  private func enroll(_ arguments: JSONObject) throws(GalleryFailure) -> JSONObject {
    let id = try Self.text(arguments, "user")
    let user = GalleryUser(
      id: id, name: arguments["name"]?.stringValue ?? id, details: arguments["details"]?.objectValue ?? JSONObject(),
      groups: arguments["group"]?.stringValue.map { [$0] } ?? [])
    let faces = try facesArgument(arguments)
    let store = try openGallery().store
    let added = try GalleryFailure.run { () throws(GalleryError) in
      try store.enroll(Enrollment(user: user, faces: faces))
    }
    return JSONObject([("user", .string(id)), ("faces", .array(added.map { .integer($0.id) }))])
  }

  private func addFaces(_ arguments: JSONObject) throws(GalleryFailure) -> JSONObject {
    let id = try Self.text(arguments, "user")
    let faces = try facesArgument(arguments)
    let store = try openGallery().store
    let added = try GalleryFailure.run { () throws(GalleryError) in try store.addFaces(faces, toUser: id) }
    return JSONObject([("user", .string(id)), ("faces", .array(added.map { .integer($0.id) }))])
  }

  private func verify(_ arguments: JSONObject) throws(GalleryFailure) -> JSONObject {
    let id = try Self.text(arguments, "user")
    let probe = try face(arguments["face"]?.stringValue ?? "live")
    let gallery = try openGallery()
    let result = try GalleryFailure.run { () throws(GalleryError) in try gallery.verify(probe.descriptor, user: id) }
    var fields = Self.matchFields(FaceMatch(distance: result.distance, threshold: result.threshold))
    fields["user"] = .string(id)
    fields["face_id"] = .integer(result.faceID)
    fields["images"] = keep("verify", [("live", probe.chip), ("enrolled", enrolledChip(result.faceID))])
    return fields
  }

  private func identify(_ arguments: JSONObject) throws(GalleryFailure) -> JSONObject {
    let group = arguments["group"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
    let top = Int(arguments["top"]?.integerValue ?? 1)
    guard (1...100).contains(top) else { throw GalleryFailure(.invalidName, "top must be 1 to 100, not \(top)") }
    let probe = try face(arguments["face"]?.stringValue ?? "live")
    let gallery = try openGallery()
    let candidates = try GalleryFailure.run { () throws(GalleryError) in
      try gallery.identify(probe.descriptor, group: group, top: top)
    }
    let best = candidates.first.flatMap { FaceMatch(distance: $0.distance, threshold: threshold).isMatch ? $0 : nil }
    var fields = JSONObject([("match", .bool(best != nil))])
    fields["user"] = best.map { JSONValue.string($0.userID) }
    fields["group"] = group.map { JSONValue.string($0) }
    fields["threshold"] = Self.rounded(threshold)
    fields["candidates"] = .array(
      candidates.map {
        .object(JSONObject([("user", .string($0.userID)), ("distance", Self.rounded($0.distance))]))
      })
    if let nearest = candidates.first {
      fields["images"] = keep("identify", [("live", probe.chip), ("enrolled", enrolledChip(nearest.faceID))])
    }
    return fields
  }

  /// The enrolled face's aligned crop, when the gallery kept one.
  private func enrolledChip(_ faceID: Int64) -> [UInt8]? {
    guard let store = gallery?.store else { return nil }
    return (try? store.chip(ofFace: faceID)) ?? nil
  }

  /// Writes the faces of a comparison into the artifacts folder
  /// (`verify1.live.jpg`, ...); `{ role: path }`, or nil without --artifacts.
  private func keep(_ operation: String, _ faces: [(role: String, chip: [UInt8]?)]) -> JSONValue? {
    guard let artifacts else { return nil }
    comparisons += 1
    var images = JSONObject()
    for (role, chip) in faces {
      guard let chip else { continue }
      if let path = try? artifacts.write("\(operation)\(comparisons).\(role).jpg", chip) {
        images[role] = .string(path)
      }
    }
    return images.isEmpty ? nil : .object(images)
  }

  private func face(_ name: String) throws(GalleryFailure) -> NewFace {
    guard let face = kept[name] else {
      throw GalleryFailure(
        .missingImage,
        "no face was described as '\(name)'"
          + (kept.isEmpty ? "" : " (described: \(kept.keys.sorted().joined(separator: ", ")))"))
    }
    return face
  }

  private func facesArgument(_ arguments: JSONObject) throws(GalleryFailure) -> [NewFace] {
    let names = (arguments["faces"]?.arrayValue ?? []).compactMap(\.stringValue)
    guard !names.isEmpty else {
      throw GalleryFailure(.missingImage, "no faces to enroll: faces = { \"best_shot\" } names described faces")
    }
    var faces: [NewFace] = []
    for name in names { faces.append(try face(name)) }
    return faces
  }

  private func openGallery() throws(GalleryFailure) -> Gallery {
    if let gallery { return gallery }
    if isDefaultLocation {
      try GalleryFailure.makeFolder(of: location, otherwise: "name a gallery with run --gallery FILE")
    }
    do {
      let opened = try Gallery.open(location, create: true, threshold: threshold)
      gallery = opened
      return opened
    } catch {
      throw GalleryFailure(error)
    }
  }

  private func portraitImage(_ decoded: DecodedFrame) -> ImageBuffer? {
    for estimator in estimators {
      guard let provider = estimator as? any CaptureImageProvider, provider.captureImageNames.contains("portrait")
      else { continue }
      if let image = provider.captureImage(named: "portrait", frame: decoded), image.format == .rgb8 {
        return image.copy()
      }
    }
    return nil
  }

  private static func text(_ arguments: JSONObject, _ key: String) throws(GalleryFailure) -> String {
    guard let value = arguments[key]?.stringValue, !value.isEmpty else {
      throw GalleryFailure(.invalidName, "\(key) is missing: give \(key) = \"...\"")
    }
    return value
  }

  private static func matchFields(_ match: FaceMatch) -> JSONObject {
    JSONObject([
      ("distance", rounded(match.distance)), ("threshold", rounded(match.threshold)), ("match", .bool(match.isMatch)),
    ])
  }

  private static func rounded(_ value: Float) -> JSONValue { .number((Double(value) * 10_000).rounded() / 10_000) }

  private static func failure(_ name: String, _ message: String) -> JSONObject {
    JSONObject([("error", .string(name)), ("message", .string(message))])
  }

  private static func sha256(_ image: ImageBuffer) -> String {
    let bytes = UnsafeRawBufferPointer(start: image.pixels, count: image.byteCount)
    return SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
  }
}
