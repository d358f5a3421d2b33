import FaceEstimation
import Foundation
import Imaging

/// How a presentation-attack model wants its input and gives its answer:
/// the settings `pad.*` (docs/liveness.md has working values for
/// MiniFASNet and anti-spoof-mn3).
public struct PADConfiguration: Sendable, Equatable {
  public enum Channels: String, Sendable, CaseIterable { case bgr, rgb }
  /// `softmax`: logits, softmax taken here; `probabilities`: the model
  /// takes it; `sigmoid`: one logit.
  public enum Output: String, Sendable, CaseIterable { case softmax, probabilities, sigmoid }

  /// The ONNX files; with several, their live probabilities are averaged.
  public var models: [String]
  public var width: Int
  public var height: Int
  /// The face box scaled by this about its centre, as MiniFASNet's
  /// reference crops: one for every model, or one per model.
  public var cropScales: [Double] = [2.7]
  public var channels = Channels.bgr
  /// Per channel of the model's input, in its order: (pixel − mean) / scale.
  public var mean: [Double] = [0, 0, 0]
  public var scale: [Double] = [1, 1, 1]
  public var output = Output.softmax
  /// The class that means a live face (MiniFASNet: 1; anti-spoof-mn3: 0).
  public var liveClass = 1

  public init(models: [String], width: Int, height: Int) {
    self.models = models
    self.width = width
    self.height = height
  }

  func cropScale(ofModel index: Int) -> Double { cropScales.count == 1 ? cropScales[0] : cropScales[index] }
}

/// A face's live probability from one or more models: the crop, the
/// input tensor and the output read as the configuration says.
public final class PADScorer {
  public let configuration: PADConfiguration
  public let models: [PADModel]
  /// The crop the last model ran on (RGB, the model's input size).
  public let lastCrop = ImageBuffer(format: .rgb8)
  private let input: UnsafeMutablePointer<Float>
  private let output: UnsafeMutablePointer<Float>

  /// Loads every model and checks that its output can be read as
  /// configured: a problem is an error that names the model file.
  public init(_ configuration: PADConfiguration) throws(PADModelError) {
    // The settings check these too; a configuration built in code must not index past them.
    for (key, values) in [("pad.mean", configuration.mean), ("pad.scale", configuration.scale)] where values.count != 3
    {
      throw PADModelError(
        path: key, message: "has \(values.count) values, one per input plane is 3",
        help: "give three numbers, in the order of pad.channels")
    }
    if configuration.scale.contains(where: { $0 == 0 || !$0.isFinite }) {
      throw PADModelError(
        path: "pad.scale", message: "has a value of 0, or one that is not a number",
        help: "divide by 1 to keep a plane as it is")
    }
    if configuration.cropScales.isEmpty
      || configuration.cropScales.count != 1 && configuration.cropScales.count != configuration.models.count
    {
      throw PADModelError(
        path: "pad.crop_scale",
        message: "has \(configuration.cropScales.count) values for \(configuration.models.count) models",
        help: "give one scale for every model, or one per model in the order of pad.model")
    }
    self.configuration = configuration
    var models: [PADModel] = []
    for path in configuration.models {
      let model = try PADModel(path: path, width: configuration.width, height: configuration.height)
      try Self.checkOutput(model, configuration)
      models.append(model)
    }
    self.models = models
    input = .allocate(capacity: 3 * configuration.width * configuration.height)
    output = .allocate(capacity: max(1, models.map(\.outputCount).max() ?? 1))
  }

  deinit {
    input.deallocate()
    output.deallocate()
  }

  static func checkOutput(_ model: PADModel, _ configuration: PADConfiguration) throws(PADModelError) {
    let count = model.outputCount
    switch configuration.output {
    case .sigmoid where count != 1:
      throw PADModelError(
        path: model.path, message: "gives \(count) values, and pad.output = sigmoid reads one logit",
        help: "set pad.output to softmax (logits) or probabilities, with pad.live_class")
    case .softmax, .probabilities:
      guard count >= 2 else {
        throw PADModelError(
          path: model.path,
          message: "gives \(count) value, and pad.output = \(configuration.output) reads one per class",
          help: "set pad.output = sigmoid for a model with one logit")
      }
      guard configuration.liveClass >= 0, configuration.liveClass < count else {
        throw PADModelError(
          path: model.path,
          message: "gives \(count) classes, and pad.live_class = \(configuration.liveClass) is not one of them",
          help: "set pad.live_class to the class of a live face, from 0 to \(count - 1)")
      }
    default:
      break
    }
  }

  /// The live probability (0–1) of the face in `box`, averaged over the
  /// models; `frame` is the RGB frame the box is in.
  public func liveProbability(of box: FaceBox, in frame: ImageBuffer) throws(PADModelError) -> Double {
    var sum = 0.0
    for (index, model) in models.enumerated() {
      let region = Self.cropRegion(
        frameWidth: frame.width, frameHeight: frame.height, box: box, scale: configuration.cropScale(ofModel: index))
      Self.resample(frame, region: region, into: lastCrop, width: configuration.width, height: configuration.height)
      fillInput(from: lastCrop)
      try model.run(input, into: output)
      sum += probability(count: model.outputCount)
    }
    return sum / Double(models.count)
  }

  /// MiniFASNet's reference crop: the box scaled about its centre (by less
  /// when the frame is too small), shifted back inside the frame. Inclusive
  /// pixel bounds, as its slice `[top...bottom, left...right]`.
  public static func cropRegion(frameWidth: Int, frameHeight: Int, box: FaceBox, scale: Double) -> (
    left: Int, top: Int, right: Int, bottom: Int
  ) {
    let sourceWidth = Double(frameWidth)
    let sourceHeight = Double(frameHeight)
    let boxWidth = max(box.width, 1)
    let boxHeight = max(box.height, 1)
    let scale = min((sourceHeight - 1) / boxHeight, min((sourceWidth - 1) / boxWidth, scale))
    let newWidth = boxWidth * scale
    let newHeight = boxHeight * scale
    let centreX = boxWidth / 2 + box.x
    let centreY = boxHeight / 2 + box.y
    var left = centreX - newWidth / 2
    var top = centreY - newHeight / 2
    var right = centreX + newWidth / 2
    var bottom = centreY + newHeight / 2
    if left < 0 {
      right -= left
      left = 0
    }
    if top < 0 {
      bottom -= top
      top = 0
    }
    if right > sourceWidth - 1 {
      left -= right - sourceWidth + 1
      right = sourceWidth - 1
    }
    if bottom > sourceHeight - 1 {
      top -= bottom - sourceHeight + 1
      bottom = sourceHeight - 1
    }
    // Python's int(): towards zero.
    return (Int(left), Int(top), Int(right), Int(bottom))
  }

  /// Bilinear resampling of the inclusive region to width × height, with
  /// pixel centres aligned as OpenCV's INTER_LINEAR aligns them.
  static func resample(
    _ frame: ImageBuffer, region: (left: Int, top: Int, right: Int, bottom: Int), into crop: ImageBuffer, width: Int,
    height: Int
  ) {
    crop.reshape(width: width, height: height, format: .rgb8)
    let channels = frame.format.bytesPerPixel
    let regionWidth = max(1, region.right - region.left + 1)
    let regionHeight = max(1, region.bottom - region.top + 1)
    let scaleX = Double(regionWidth) / Double(width)
    let scaleY = Double(regionHeight) / Double(height)
    func sample(_ position: Double, size: Int) -> (Int, Int, Double) {
      var first = Int(position.rounded(.down))
      var weight = position - Double(first)
      if first < 0 {
        first = 0
        weight = 0
      }
      if first >= size - 1 {
        first = size - 1
        weight = 0
      }
      return (first, min(first + 1, size - 1), weight)
    }
    for v in 0..<height {
      let (y0, y1, wy) = sample((Double(v) + 0.5) * scaleY - 0.5, size: regionHeight)
      let row0 = frame.pixels + ((region.top + y0) * frame.width + region.left) * channels
      let row1 = frame.pixels + ((region.top + y1) * frame.width + region.left) * channels
      for u in 0..<width {
        let (x0, x1, wx) = sample((Double(u) + 0.5) * scaleX - 0.5, size: regionWidth)
        let out = crop.pixels + (v * width + u) * 3
        for c in 0..<3 {
          let channel = channels == 3 ? c : 0
          let top = Double(row0[x0 * channels + channel]) * (1 - wx) + Double(row0[x1 * channels + channel]) * wx
          let bottom = Double(row1[x0 * channels + channel]) * (1 - wx) + Double(row1[x1 * channels + channel]) * wx
          out[c] = UInt8(max(0, min(255, (top * (1 - wy) + bottom * wy).rounded())))
        }
      }
    }
  }

  /// The crop as the model's input: planes in the configured channel
  /// order, each (pixel − mean) / scale.
  func fillInput(from crop: ImageBuffer) {
    let plane = configuration.width * configuration.height
    for channel in 0..<3 {
      let source = configuration.channels == .rgb ? channel : 2 - channel
      let mean = Float(configuration.mean[channel])
      let scale = Float(configuration.scale[channel])
      let destination = input + channel * plane
      for index in 0..<plane {
        destination[index] = (Float(crop.pixels[index * 3 + source]) - mean) / scale
      }
    }
  }

  func probability(count: Int) -> Double {
    switch configuration.output {
    case .sigmoid:
      return 1 / (1 + exp(-Double(output[0])))
    case .probabilities:
      return min(1, max(0, Double(output[configuration.liveClass])))
    case .softmax:
      var largest = -Double.infinity
      for index in 0..<count { largest = max(largest, Double(output[index])) }
      var sum = 0.0
      for index in 0..<count { sum += exp(Double(output[index]) - largest) }
      return exp(Double(output[configuration.liveClass]) - largest) / sum
    }
  }
}
