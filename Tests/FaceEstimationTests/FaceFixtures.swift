import Estimators
import FaceEstimation
import FaceEstimationTesting
import Foundation
import Imaging
import Measurements
import TestSupport

enum FaceFixtures {
  static let folder = packageRoot() + "/Tests/Fixtures"

  /// A fixture photo decoded to colour.
  static func color(_ relative: String) throws -> ImageBuffer {
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/" + relative)))
    let image = ImageBuffer(format: .rgb8)
    try JPEGDecoder().decode(bytes, into: image, format: .rgb8)
    return image
  }

  /// The 72 frames of the blink video, in order.
  static func blinkFrames() throws -> [String] {
    (1...72).map { String(format: "faces/single_face_blink_30fps/%04d.jpg", $0) }
  }

  /// `image` flipped left to right.
  static func mirrored(_ image: ImageBuffer) -> ImageBuffer {
    let result = ImageBuffer(width: image.width, height: image.height, format: .rgb8)
    for y in 0..<image.height {
      let row = y * image.rowBytes
      for x in 0..<image.width {
        let from = row + x * 3
        let to = row + (image.width - 1 - x) * 3
        for channel in 0..<3 { result.pixels[to + channel] = image.pixels[from + channel] }
      }
    }
    return result
  }

  /// A frame for an estimator, with its gray plane made from `color`.
  static func frame(_ color: ImageBuffer, index: Int64 = 0, t: Double = 0) throws -> DecodedFrame {
    let frame = DecodedFrame()
    frame.index = index
    frame.t = t
    frame.color.reshape(width: color.width, height: color.height, format: .rgb8)
    frame.color.pixels.update(from: color.pixels, count: color.byteCount)
    frame.hasColor = true
    try ImageConversion.rgb8ToGray8(color, into: frame.gray)
    frame.sourceWidth = color.width
    frame.sourceHeight = color.height
    return frame
  }
}

/// A face estimator prepared on its own schema, that returns the
/// measurements of each frame by path.
final class FaceRun {
  let estimator: FaceEstimator
  let schema = MeasurementSchema()

  init(options: FaceEstimatorOptions) throws {
    estimator = FaceEstimator(options: options)
    try estimator.prepare(schema: schema)
  }

  convenience init(mirror: Bool = false, tiles: Int = 0) throws {
    var options = FaceBackendInstall.options
    options.mirror = mirror
    options.backend.searchTiles = tiles
    try self.init(options: options)
  }

  /// Measures one frame; values by dotted path.
  func measure(_ color: ImageBuffer, index: Int64 = 0, t: Double = 0) throws -> [String: Double] {
    let frame = try FaceFixtures.frame(color, index: index, t: t)
    var measurements = MeasurementFrame(t: t, index: index)
    estimator.estimate(frame, into: &measurements)
    var values: [String: Double] = [:]
    for (id, node) in schema.nodes.enumerated() {
      switch measurements[id] {
      case .number(let number): values[node.path] = number
      case .integer(let integer): values[node.path] = Double(integer)
      default: break
      }
    }
    return values
  }
}
