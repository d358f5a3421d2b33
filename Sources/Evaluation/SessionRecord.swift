import JSONCore

/// What a flow decided on one session at one settings point: a line of
/// `sessions.jsonl`. docs/eval.md.
public struct SessionRecord: Sendable, Equatable {
  public enum Decision: String, Sendable {
    /// The flow passed: classified as a bona fide presentation.
    case accepted
    case rejected
    /// No decision: the run could not be made, or its reason is one
    /// `--no-response` names. Counted in APNRR/BPNRR, never in APCER/BPCER.
    case none
  }

  public var id: String
  public var input: String
  public var label: CorpusSession.Label
  public var species: String?
  public var subject: String?
  /// The settings point's values (the sweep's keys).
  public var settings: JSONObject
  public var decision: Decision
  public var reason: String
  public var code: Int64?
  public var failedStep: String?
  /// Seconds of input at which the flow decided.
  public var decidedAt: Double?
  public var score: Double?
  public var error: String?

  public var jsonValue: JSONValue {
    var object = JSONObject([
      ("id", .string(id)), ("input", .string(input)), ("label", .string(label.rawValue)),
      ("species", species.map(JSONValue.string) ?? .null), ("subject", subject.map(JSONValue.string) ?? .null),
      ("settings", .object(settings)), ("decision", .string(decision.rawValue)), ("reason", .string(reason)),
      ("code", code.map(JSONValue.integer) ?? .null), ("failed_step", failedStep.map(JSONValue.string) ?? .null),
      ("decided_at", decidedAt.map { .number($0.roundedToMicroseconds) } ?? .null),
      ("score", score.map { .number($0.roundedToMicroseconds) } ?? .null),
    ])
    object["error"] = error.map(JSONValue.string) ?? .null
    return .object(object)
  }

  /// Reads a record back (merge, resume); nil when the line is not one.
  public init?(_ value: JSONValue) {
    guard let object = value.objectValue, let id = object["id"]?.stringValue,
      let input = object["input"]?.stringValue,
      let label = object["label"]?.stringValue.flatMap(CorpusSession.Label.init(rawValue:)),
      let decision = object["decision"]?.stringValue.flatMap(Decision.init(rawValue:)),
      let reason = object["reason"]?.stringValue
    else { return nil }
    self.init(
      id: id, input: input, label: label, species: object["species"]?.stringValue,
      subject: object["subject"]?.stringValue, settings: object["settings"]?.objectValue ?? JSONObject(),
      decision: decision, reason: reason, code: object["code"]?.integerValue,
      failedStep: object["failed_step"]?.stringValue, decidedAt: object["decided_at"]?.doubleValue,
      score: object["score"]?.doubleValue, error: object["error"]?.stringValue)
  }

  public init(
    id: String, input: String, label: CorpusSession.Label, species: String?, subject: String?, settings: JSONObject,
    decision: Decision, reason: String, code: Int64?, failedStep: String?, decidedAt: Double?, score: Double?,
    error: String?
  ) {
    self.id = id
    self.input = input
    self.label = label
    self.species = species
    self.subject = subject
    self.settings = settings
    self.decision = decision
    self.reason = reason
    self.code = code
    self.failedStep = failedStep
    self.decidedAt = decidedAt
    self.score = score
    self.error = error
  }
}
