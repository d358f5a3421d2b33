import Estimators
import FaceEstimation
import Imaging
import Logging
import Measurements
import Settings

/// `face.liveness.onnx`: a presentation-attack model the user brings
/// (`pad.model`), run on each face the face estimator found: writes
/// `face.liveness`, the live probability (0–1) of the largest face, and
/// `face.faces.<n>.liveness` for each. The model loads and is checked when
/// the run starts, so a model that cannot run is the run's error then
/// (exit 2, or `initialization_failed`), never half way through a flow.
public final class PassiveLivenessEstimator: Estimator, DemandDriven {
  public static let name = "face.liveness.onnx"

  public static let measurementFields = [
    MeasurementField("face.liveness"), MeasurementField("face.faces.#.liveness"),
  ]

  /// The settings `pad.*` (presentation-attack detection), apart from the
  /// flows' own `liveness.*`. docs/liveness.md has working values for the
  /// public models.
  public static let settingDeclarations: [SettingDeclaration] = [
    .strings(
      "pad.model", default: [],
      doc:
        "ONNX presentation-attack model the user brings, or a list whose live probabilities are averaged; empty: none"),
    .numbers(
      "pad.input_size", default: [80], lengths: 1...2, minimum: 8, maximum: 2048, unit: "px",
      doc: "The model's input: one side of a square, or [width, height]"),
    .numbers(
      "pad.crop_scale", default: [2.7], lengths: 1...16, minimum: 0.1, maximum: 20,
      doc: "The face box scaled about its centre for the crop, as MiniFASNet's reference: one, or one per model"),
    .choice("pad.channels", ["bgr", "rgb"], default: "bgr", doc: "The order of the input's colour planes"),
    .numbers(
      "pad.mean", default: [0, 0, 0], lengths: 3...3,
      doc: "Per input plane: subtracted from the pixel (0-255) before dividing by pad.scale"),
    .numbers(
      "pad.scale", default: [1, 1, 1], lengths: 3...3, minimum: 1e-6,
      doc: "Per input plane: (pixel - pad.mean) / pad.scale; mean 0 and scale 1 keep raw 0-255"),
    .choice(
      "pad.output", ["softmax", "probabilities", "sigmoid"], default: "softmax",
      doc: "What the model outputs: logits (softmax taken here), probabilities, or one logit (sigmoid)"),
    .integer(
      "pad.live_class", default: 1, minimum: 0, maximum: 1000,
      doc: "The output class of a live face (MiniFASNet: 1; anti-spoof-mn3: 0)"),
    .integer(
      "pad.every", default: 0, minimum: 0, maximum: 10_000, unit: "frames",
      doc: "0: estimate only on frames whose step reads face.liveness; n: on every n-th frame"),
  ]

  /// Whether `wanted` names the estimator's measurements.
  public static func isWanted(_ wanted: [String]?) -> Bool {
    wanted?.contains { $0 == "face.liveness" || ($0.hasPrefix("face.faces.") && $0.hasSuffix(".liveness")) } ?? false
  }

  /// The configuration the settings give; nil when `pad.model` is empty.
  public static func configuration(_ settings: ResolvedSettings?) -> PADConfiguration? {
    let models = (settings?.strings("pad.model") ?? []).filter { !$0.isEmpty }
    guard !models.isEmpty else { return nil }
    let size = settings?.numbers("pad.input_size") ?? [80]
    var configuration = PADConfiguration(
      models: models, width: Int(size[0]), height: Int(size.count > 1 ? size[1] : size[0]))
    if let scales = settings?.numbers("pad.crop_scale") { configuration.cropScales = scales }
    if let channels = settings?.string("pad.channels").flatMap(PADConfiguration.Channels.init(rawValue:)) {
      configuration.channels = channels
    }
    if let mean = settings?.numbers("pad.mean") { configuration.mean = mean }
    if let scale = settings?.numbers("pad.scale") { configuration.scale = scale }
    if let output = settings?.string("pad.output").flatMap(PADConfiguration.Output.init(rawValue:)) {
      configuration.output = output
    }
    if let liveClass = settings?.integer("pad.live_class") { configuration.liveClass = Int(liveClass) }
    return configuration
  }

  public let descriptor: EstimatorDescriptor
  /// Nil when no model is set: then a run that reads face.liveness fails at start.
  public let configuration: PADConfiguration?
  /// Estimate on every n-th frame; 0: on the frames whose step reads face.liveness.
  public var every: Int { schedule.every }
  private var schedule: DemandSchedule
  private var demand: MeasurementDemand?
  private let face: FaceEstimator
  private let logger: Logger
  private var scorer: PADScorer?
  private var failures = 0
  private var primaryNode = -1
  private var faceNodes: [Int] = []

  public init(face: FaceEstimator, settings: ResolvedSettings?, logger: Logger = Logger(label: "workbench.pad")) {
    self.face = face
    self.logger = logger
    configuration = Self.configuration(settings)
    schedule = DemandSchedule(every: Int(settings?.integer("pad.every") ?? 0), field: "face.liveness")
    // Needs face.count, the face estimator's own, not the group `face`: the group takes in the
    // other estimators beside the face (descriptors, liveness), which would need this one back.
    descriptor = EstimatorDescriptor(
      name: Self.name,
      summary: "face.liveness: the live probability of each face from an ONNX model the user brings (pad.model)",
      provides: ["face.liveness"], fields: Self.measurementFields, needs: ["face.count"], image: .color,
      workingWidth: 640)
  }

  /// Loads the models and checks each with one inference: a model that
  /// cannot run is the run's error now, naming the file.
  public func prepare(schema: MeasurementSchema) throws(EstimatorError) {
    guard let configuration else {
      throw EstimatorError(
        estimator: Self.name, "face.liveness needs a presentation-attack model, and pad.model is empty",
        help:
          "set pad.model to an ONNX model, or pad.url to a liveness service (docs/liveness.md says how, with the settings of the public models)"
      )
    }
    if scorer == nil {
      do {
        scorer = try PADScorer(configuration)
      } catch {
        throw EstimatorError(estimator: Self.name, error.description, help: error.help)
      }
    }
    primaryNode = try schema.valueNode("face.liveness", estimator: Self.name)
    faceNodes = []
    for index in 1...face.options.backend.maxFaces {
      faceNodes.append(try schema.valueNode("face.faces.\(index).liveness", estimator: Self.name))
    }
  }

  public func attach(_ demand: MeasurementDemand) { self.demand = demand }

  /// The crop the last estimate ran on (the last model's), for checking
  /// what the model saw.
  public var lastCrop: ImageBuffer? { scorer?.lastCrop }

  public func estimate(_ frame: DecodedFrame, into measurements: inout MeasurementFrame) {
    guard schedule.isDue(demand), let scorer, !face.faces.isEmpty, frame.hasColor, frame.color.width > 0 else {
      return
    }
    // Face boxes are in pixels of the frame as captured; the decoded frame may be smaller.
    let sourceWidth = frame.sourceWidth > 0 ? frame.sourceWidth : frame.width
    let scale = Double(frame.color.width) / Double(max(sourceWidth, 1))
    for (index, found) in face.faces.enumerated() where index < faceNodes.count {
      let box = FaceBox(
        x: found.box.x * scale, y: found.box.y * scale, width: found.box.width * scale,
        height: found.box.height * scale)
      do {
        let live = try scorer.liveProbability(of: box, in: frame.color)
        measurements[faceNodes[index]] = .number(live)
        if index == 0 { measurements[primaryNode] = .number(live) }
      } catch {
        failures += 1
        if failures == 1 { logger.warning("\(Self.name): \(error.description); the frame has no face.liveness") }
      }
    }
  }
}
