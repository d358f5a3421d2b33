import JSONCore

/// What a liveness service said about one image, in LUNA PLATFORM's shape:
/// `images[0].liveness` with `prediction` (0 spoof, 1 real, 2 unknown, or
/// those words) and `estimations.probability` and `estimations.quality`
/// (both 0–1).
public struct LivenessAnswer: Sendable, Equatable {
  public enum Prediction: String, Sendable {
    case spoof, real, unknown
  }

  /// The probability that the face is live.
  public var probability: Double
  /// How fit the image was for the estimate; nil when the service gives none.
  public var quality: Double?
  public var prediction: Prediction?

  public init(probability: Double, quality: Double? = nil, prediction: Prediction? = nil) {
    self.probability = probability
    self.quality = quality
    self.prediction = prediction
  }

  /// Reads a response body; the error says what was wrong with it.
  public static func parse(_ body: [UInt8]) throws(LivenessServiceError) -> LivenessAnswer {
    let json: JSONValue
    do {
      json = try JSONParser.parse(bytes: body)
    } catch {
      throw LivenessServiceError(.badAnswer, "the answer is not JSON (\(error.description))")
    }
    guard let image = json["images"]?.arrayValue?.first else {
      throw LivenessServiceError(.badAnswer, "the answer has no images[0]")
    }
    if let failure = image["error"], let id = failure["error_id"]?.integerValue, id != 0 {
      let detail = failure["detail"]?.stringValue ?? failure["desc"]?.stringValue ?? "no detail"
      throw LivenessServiceError(.refused, "the service could not estimate the image: error \(id), \(detail)")
    }
    guard let liveness = image["liveness"]?.objectValue else {
      throw LivenessServiceError(.badAnswer, "images[0] has no liveness")
    }
    let estimations = liveness["estimations"]
    guard let probability = estimations?["probability"]?.doubleValue, (0...1).contains(probability) else {
      throw LivenessServiceError(
        .badAnswer, "images[0].liveness.estimations.probability is missing or not a number from 0 to 1")
    }
    var answer = LivenessAnswer(probability: probability)
    if let quality = estimations?["quality"]?.doubleValue, (0...1).contains(quality) { answer.quality = quality }
    switch liveness["prediction"] {
    case .some(let value) where value.integerValue != nil:
      let table: [Int64: Prediction] = [0: .spoof, 1: .real, 2: .unknown]
      answer.prediction = table[value.integerValue ?? -1]
    case .some(let value) where value.stringValue != nil:
      answer.prediction = Prediction(rawValue: value.stringValue?.lowercased() ?? "")
    default:
      break
    }
    return answer
  }
}

/// Why a liveness request gave no answer.
public struct LivenessServiceError: Error, Sendable, Equatable, CustomStringConvertible {
  public enum Kind: String, Sendable {
    /// No connection: refused, no route, name not found, TLS failed.
    case unreachable
    /// No answer within `pad.timeout`.
    case timeout
    /// An HTTP status other than 2xx.
    case status
    /// The service answered, but said it could not estimate the image.
    case refused
    /// A body that does not read as LUNA PLATFORM's answer.
    case badAnswer = "bad_answer"
  }

  public var kind: Kind
  public var message: String

  public init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }

  public var description: String { message }

  /// Worth one more try: the network or the service's own failure.
  var isTransient: Bool {
    switch kind {
    case .unreachable, .timeout: true
    case .status: message.hasPrefix("HTTP 5")
    case .refused, .badAnswer: false
    }
  }
}
