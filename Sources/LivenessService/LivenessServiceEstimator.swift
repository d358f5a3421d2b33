import Estimators
import Foundation
import Imaging
import Logging
import Measurements
import Settings

/// `face.liveness.http`: a liveness service (`pad.url`) in place of a model,
/// as LUNA ID's online OneShotLiveness asks LUNA PLATFORM. On a frame the
/// flow asks for (or every `pad.every`-th) with a face, the frame goes to
/// the service as JPEG; its answer becomes `face.liveness` and
/// `face.liveness_quality` of the frame on which it comes. A request that
/// fails writes `face.liveness_error` instead, which `wb.passive_liveness`
/// turns into `liveness_unavailable`.
///
/// With a camera the frame loop never waits: the answer comes on a later
/// frame. A recording has no clock to keep, so there the frame after the
/// one posted waits for the answer, and the result does not depend on how
/// fast the service was.
public final class LivenessServiceEstimator: Estimator, DemandDriven {
  public static let name = "face.liveness.http"

  public static let measurementFields = [
    MeasurementField("face.liveness_quality"), MeasurementField("face.liveness_error", .string),
  ]

  public static let settingDeclarations: [SettingDeclaration] = [
    .string(
      "pad.url", default: "",
      doc: "A liveness service taking LUNA PLATFORM's /liveness request, in place of pad.model; empty: none"),
    .number(
      "pad.timeout", default: 5, minimum: 0.05, maximum: 120, unit: "s",
      doc: "How long one request to pad.url may take; a request that fails is tried once more"),
    .string(
      "pad.ca_file", default: "",
      doc: "PEM certificates to trust for an https pad.url, besides the system's; empty: the system's"),
  ]

  /// The service's URL; nil when `pad.url` is empty.
  public static func url(_ settings: ResolvedSettings?) -> String? {
    guard let url = settings?.string("pad.url"), !url.isEmpty else { return nil }
    return url
  }

  public let descriptor: EstimatorDescriptor
  public let url: String
  private var schedule: DemandSchedule
  private let timeout: Double
  private let caFile: String?
  /// What is wrong with the settings, said when the run starts.
  private let settingsProblem: EstimatorError?
  private let logger: Logger
  private var client: LivenessServiceClient?
  private let encoder = JPEGEncoder()
  private var demand: MeasurementDemand?
  private var run = 0
  private var warned: Set<LivenessServiceError.Kind> = []
  private var countNode = -1
  private var livenessNode = -1
  private var qualityNode = -1
  private var errorNode = -1

  public init(settings: ResolvedSettings?, logger: Logger = Logger(label: "workbench.pad")) {
    url = Self.url(settings) ?? ""
    schedule = DemandSchedule(every: Int(settings?.integer("pad.every") ?? 0), field: "face.liveness")
    timeout = settings?.number("pad.timeout") ?? 5
    caFile = settings?.string("pad.ca_file").flatMap { $0.isEmpty ? nil : $0 }
    self.logger = logger
    let models = (settings?.strings("pad.model") ?? []).filter { !$0.isEmpty }
    settingsProblem =
      models.isEmpty
      ? nil
      : EstimatorError(
        estimator: Self.name, "pad.url and pad.model are both set: face.liveness comes from one of them",
        help: "keep pad.url for the service or pad.model for a model of your own, and set the other to empty")
    descriptor = EstimatorDescriptor(
      name: Self.name,
      summary: "face.liveness from a liveness service (pad.url), as LUNA PLATFORM's /liveness answers",
      provides: ["face.liveness", "face.liveness_quality", "face.liveness_error"],
      fields: [MeasurementField("face.liveness")] + Self.measurementFields, needs: ["face.count"], image: .color,
      workingWidth: 640)
  }

  public func prepare(schema: MeasurementSchema) throws(EstimatorError) {
    if let settingsProblem { throw settingsProblem }
    if client == nil {
      do {
        client = try LivenessServiceClient(url: url, timeout: timeout, caFile: caFile)
      } catch {
        throw EstimatorError(
          estimator: Self.name, "pad.url: \(error.message)",
          help: "set pad.url to the service's liveness resource, e.g. https://luna.example/6/liveness")
      }
    }
    countNode = try schema.valueNode("face.count", estimator: Self.name)
    livenessNode = try schema.valueNode("face.liveness", estimator: Self.name)
    qualityNode = try schema.valueNode("face.liveness_quality", estimator: Self.name)
    errorNode = try schema.valueNode("face.liveness_error", estimator: Self.name)
  }

  public func attach(_ demand: MeasurementDemand) { self.demand = demand }

  /// Requests tried so far (a retry counts), for tests and the log.
  public var attempts: Int { client?.attempts ?? 0 }

  public func estimate(_ frame: DecodedFrame, into measurements: inout MeasurementFrame) {
    let due = schedule.isDue(demand)
    guard let client else { return }
    if let demand, demand.run != run {
      run = demand.run
      client.discardAnswer()
    }
    let live = demand?.live ?? false
    if let completed = live || !client.isBusy ? client.takeAnswer() : client.waitForAnswer() {
      write(completed.result, into: &measurements)
    }
    guard due, !client.isBusy, frame.hasColor, frame.color.width > 0,
      case .integer(let count) = measurements[countNode], count > 0
    else { return }
    do {
      _ = client.submit(jpeg: try encoder.encode(frame.color, quality: 90), frame: frame.index)
    } catch {
      measurements[errorNode] = .string("the frame could not be encoded: \(error.description)")
    }
  }

  private func write(_ result: Result<LivenessAnswer, LivenessServiceError>, into measurements: inout MeasurementFrame)
  {
    switch result {
    case .success(let answer):
      measurements[livenessNode] = .number(answer.probability)
      if let quality = answer.quality { measurements[qualityNode] = .number(quality) }
    case .failure(let error):
      measurements[errorNode] = .string("\(error.kind.rawValue): \(error.message)")
      if warned.insert(error.kind).inserted {
        logger.warning("\(Self.name): \(error.message); the step that asked gets liveness_unavailable")
      }
    }
  }
}
