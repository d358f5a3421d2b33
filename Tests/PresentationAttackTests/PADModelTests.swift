import FaceEstimation
import Foundation
import Imaging
import PresentationAttack
import TestSupport
import Testing

/// The small models make_models.py builds (random weights, real operations)
/// and onnx's reference evaluator, from the checkout's Python environment
/// (scripts/install-test-deps).
final class ReferenceModels: @unchecked Sendable {
  static let python = packageRootPath + "/.build/test-python/bin/python"
  static let script = packageRootPath + "/Tests/PresentationAttackTests/make_models.py"
  static let shared = ReferenceModels()

  let folder: String?

  private init() {
    guard FileManager.default.isExecutableFile(atPath: Self.python),
      let made = try? TemporaryFolder(prefix: "pad-models"),
      let run = try? Spawn.run(Self.python, [Self.script, "build", made.path]), run.status == 0
    else {
      folder = nil
      return
    }
    folder = made.path
  }

  static var available: Bool { ContinuousIntegration.isRunning || shared.folder != nil }

  func path(_ name: String) throws -> String {
    try #require(folder, "the onnx Python package is missing: run scripts/install-test-deps") + "/" + name
  }

  /// The reference evaluator's output values for `crop` (RGB bytes) as the
  /// configuration feeds it.
  func reference(_ model: String, crop: ImageBuffer, _ configuration: PADConfiguration) throws -> [Double] {
    let folder = try #require(folder)
    let cropPath = folder + "/crop-\(UUID().uuidString).rgb"
    try Data(bytes: crop.pixels, count: crop.byteCount).write(to: URL(fileURLWithPath: cropPath))
    let run = try Spawn.run(
      Self.python,
      [
        Self.script, "reference", model, cropPath, String(crop.width), String(crop.height),
        configuration.channels.rawValue, configuration.mean.map { String($0) }.joined(separator: ","),
        configuration.scale.map { String($0) }.joined(separator: ","),
      ])
    #expect(run.status == 0, "\(run.stderr)")
    return run.stdout.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
  }
}

func photo(_ name: String) throws -> ImageBuffer {
  let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: packageRootPath + "/Tests/Fixtures/people/" + name)))
  let image = ImageBuffer(format: .rgb8)
  try JPEGDecoder().decode(bytes, into: image, format: .rgb8)
  return image
}

@Suite("Presentation-attack models", .enabled(if: ReferenceModels.available))
struct PADModelTests {
  let models = ReferenceModels.shared
  /// The face of man-portrait.jpg (260×350), by eye.
  let face = FaceBox(x: 70, y: 80, width: 120, height: 150)

  @Test(
    "the live probability is the reference evaluator's on the same crop",
    arguments: [
      (
        "minifas-80.onnx", 80, PADConfiguration.Channels.bgr, [0.0, 0, 0], [1.0, 1, 1], PADConfiguration.Output.softmax,
        1
      ),
      ("minifas-80-dynamic.onnx", 80, .bgr, [0, 0, 0], [1, 1, 1], .softmax, 1),
      (
        "mn3-128-softmax.onnx", 128, .rgb, [151.2405, 119.5950, 107.8395], [63.0105, 56.4570, 55.0035], .probabilities,
        0
      ),
      ("one-logit-80.onnx", 80, .rgb, [127.5, 127.5, 127.5], [127.5, 127.5, 127.5], .sigmoid, 0),
    ])
  func matchesTheReference(
    model name: String, size: Int, channels: PADConfiguration.Channels, mean: [Double], scale: [Double],
    output: PADConfiguration.Output, liveClass: Int
  ) throws {
    let path = try models.path(name)
    var configuration = PADConfiguration(models: [path], width: size, height: size)
    configuration.channels = channels
    configuration.mean = mean
    configuration.scale = scale
    configuration.output = output
    configuration.liveClass = liveClass
    let scorer = try PADScorer(configuration)
    let live = try scorer.liveProbability(of: face, in: try photo("man-portrait.jpg"))
    #expect(live >= 0 && live <= 1)
    let values = try models.reference(path, crop: scorer.lastCrop, configuration)
    let expected: Double
    switch output {
    case .sigmoid: expected = 1 / (1 + exp(-values[0]))
    case .probabilities: expected = values[liveClass]
    case .softmax:
      let largest = values.max() ?? 0
      let exps = values.map { exp($0 - largest) }
      expected = exps[liveClass] / exps.reduce(0, +)
    }
    #expect(abs(live - expected) < 1e-4, "workbench \(live), reference \(expected) from \(values)")
    // Not a constant: another face gives another answer.
    let other = try scorer.liveProbability(
      of: FaceBox(x: 10, y: 10, width: 60, height: 60), in: try photo("man-portrait.jpg"))
    #expect(other != live)
  }

  @Test("two models are fused by averaging their live probabilities")
  func fusion() throws {
    let image = try photo("man-portrait.jpg")
    var single = PADConfiguration(models: [try models.path("minifas-80.onnx")], width: 80, height: 80)
    // Small enough for both crops to fit in the frame.
    let face = FaceBox(x: 100, y: 120, width: 60, height: 75)
    let first = try PADScorer(single).liveProbability(of: face, in: image)
    single.cropScales = [4.0]
    let second = try PADScorer(single).liveProbability(of: face, in: image)
    var both = PADConfiguration(
      models: [try models.path("minifas-80.onnx"), try models.path("minifas-80.onnx")], width: 80, height: 80)
    both.cropScales = [2.7, 4.0]
    let fused = try PADScorer(both).liveProbability(of: face, in: image)
    #expect(abs(fused - (first + second) / 2) < 1e-9)
    #expect(first != second)
  }

  @Test("the crop is MiniFASNet's, and the input planes are in the configured order, mean and scale")
  func cropAndPreprocessing() throws {
    let image = try photo("man-portrait.jpg")
    let region = PADScorer.cropRegion(frameWidth: 260, frameHeight: 350, box: face, scale: 2.7)
    // The box scaled by 2.7 is wider than the frame: the scale is cut to
    // (260 − 1) / 120, and the crop shifted down inside the frame.
    #expect(region == (0, 0, 259, 323))
    // Inside the frame: centred, 2.7 times the box.
    let small = PADScorer.cropRegion(
      frameWidth: 1000, frameHeight: 1000, box: FaceBox(x: 400, y: 400, width: 100, height: 100), scale: 2.7)
    #expect(small == (315, 315, 585, 585))
    // Past the left edge: shifted right by what stuck out.
    let shifted = PADScorer.cropRegion(
      frameWidth: 1000, frameHeight: 1000, box: FaceBox(x: 0, y: 400, width: 100, height: 100), scale: 2.7)
    #expect(shifted == (0, 315, 270, 585))

    for channels in PADConfiguration.Channels.allCases {
      var configuration = PADConfiguration(models: [try models.path("picker-80.onnx")], width: 80, height: 80)
      configuration.channels = channels
      configuration.mean = [10, 20, 30]
      configuration.scale = [2, 4, 8]
      configuration.output = .probabilities
      configuration.liveClass = 0
      let scorer = try PADScorer(configuration)
      _ = try scorer.liveProbability(of: face, in: image)
      let picked = try models.reference(try models.path("picker-80.onnx"), crop: scorer.lastCrop, configuration)
      // (channel of the input, row, column), as make_models.py picks them.
      let positions = [(0, 0, 0), (1, 0, 0), (2, 0, 0), (0, 5, 7), (1, 40, 40), (2, 79, 79), (0, 79, 0), (2, 0, 79)]
      #expect(picked.count == positions.count)
      for ((plane, row, column), value) in zip(positions, picked) {
        let rgbChannel = channels == .rgb ? plane : 2 - plane
        let pixel = Double(scorer.lastCrop.pixels[(row * 80 + column) * 3 + rgbChannel])
        let mean = configuration.mean[plane]
        let scale = configuration.scale[plane]
        #expect(abs(value - (pixel - mean) / scale) < 1e-4, "plane \(plane) at \(row),\(column)")
      }
    }
    // The crop's corners are the region's: the top-left pixel of the frame.
    var configuration = PADConfiguration(models: [try models.path("picker-80.onnx")], width: 80, height: 80)
    configuration.output = .probabilities
    configuration.liveClass = 0
    let scorer = try PADScorer(configuration)
    _ = try scorer.liveProbability(of: face, in: image)
    for channel in 0..<3 {
      #expect(abs(Int(scorer.lastCrop.pixels[channel]) - Int(image.pixels[channel])) <= 8)
    }
  }

  func pickerWithoutShape() throws -> String { try models.path("picker-any.onnx") }

  @Test("a model that cannot be used is an error at load that names the file and what to change")
  func loadErrors() throws {
    let folder = try TemporaryFolder(prefix: "pad-errors")
    defer { folder.remove() }
    func failure(_ configuration: PADConfiguration) -> PADModelError? {
      do {
        _ = try PADScorer(configuration)
        return nil
      } catch {
        return error
      }
    }
    let missing = try #require(failure(PADConfiguration(models: [folder.path + "/none.onnx"], width: 80, height: 80)))
    #expect(missing.path.hasSuffix("none.onnx"))
    #expect(missing.message == "no such model file")

    let good = try Data(contentsOf: URL(fileURLWithPath: try models.path("minifas-80.onnx")))
    let cut = try folder.write("cut.onnx", "")
    try good.prefix(good.count / 2).write(to: URL(fileURLWithPath: cut))
    let corrupt = try #require(failure(PADConfiguration(models: [cut], width: 80, height: 80)))
    #expect(corrupt.message.hasPrefix("is not an ONNX model this OpenCV can read"), "\(corrupt.message)")

    let text = try folder.write("notes.onnx", "not a model at all\n")
    #expect(failure(PADConfiguration(models: [text], width: 80, height: 80)) != nil)

    // A size the model does not declare, though OpenCV would run it.
    let wrongSize = try #require(
      failure(PADConfiguration(models: [try models.path("minifas-80.onnx")], width: 128, height: 128)))
    #expect(wrongSize.message == "takes an input of 80×80, and pad.input_size says 128×128")
    #expect(wrongSize.help == "set pad.input_size = 80")
    // A size that does not run: the picker's weights are for 80×80 alone.
    let doesNotRun = try #require(failure(PADConfiguration(models: [try pickerWithoutShape()], width: 96, height: 96)))
    #expect(doesNotRun.message.hasPrefix("does not run on an input of 96×96"), "\(doesNotRun.message)")
    #expect(doesNotRun.help.contains("pad.input_size"))

    let unsupported = try #require(
      failure(PADConfiguration(models: [try models.path("unsupported.onnx")], width: 80, height: 80)))
    #expect(unsupported.message.contains("operation"), "\(unsupported.message)")

    var sigmoid = PADConfiguration(models: [try models.path("minifas-80.onnx")], width: 80, height: 80)
    sigmoid.output = .sigmoid
    #expect(failure(sigmoid)?.message == "gives 3 values, and pad.output = sigmoid reads one logit")
    var oneClass = PADConfiguration(models: [try models.path("one-logit-80.onnx")], width: 80, height: 80)
    oneClass.output = .softmax
    #expect(failure(oneClass)?.help.contains("sigmoid") == true)
    var wrongClass = PADConfiguration(models: [try models.path("minifas-80.onnx")], width: 80, height: 80)
    wrongClass.liveClass = 3
    #expect(failure(wrongClass)?.message.contains("pad.live_class = 3") == true)

    // A configuration built in code is checked as the settings are.
    var twoPlanes = PADConfiguration(models: [try models.path("minifas-80.onnx")], width: 80, height: 80)
    twoPlanes.mean = [0, 0]
    #expect(failure(twoPlanes)?.description == "pad.mean: has 2 values, one per input plane is 3")
    var zeroScale = PADConfiguration(models: [try models.path("minifas-80.onnx")], width: 80, height: 80)
    zeroScale.scale = [1, 0, 1]
    #expect(failure(zeroScale)?.path == "pad.scale")
    var scales = PADConfiguration(models: [try models.path("minifas-80.onnx")], width: 80, height: 80)
    scales.cropScales = [2.7, 4.0]
    #expect(failure(scales)?.message == "has 2 values for 1 models")
  }
}
