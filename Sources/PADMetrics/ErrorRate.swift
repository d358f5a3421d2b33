/// An error rate as counted: so many errors in so many trials (attack
/// presentations accepted, bona fide presentations rejected), with its
/// Clopper–Pearson interval.
public struct ErrorRate: Hashable, Sendable {
  public var errors: Int
  public var trials: Int
  /// The confidence of `interval`.
  public var confidence: Double

  public init(errors: Int, trials: Int, confidence: Double = 0.95) {
    self.errors = errors
    self.trials = trials
    self.confidence = confidence
  }

  /// errors / trials; nil when there were no trials (a rate of nothing is not 0).
  public var rate: Double? { trials == 0 ? nil : Double(errors) / Double(trials) }

  /// The Clopper–Pearson interval of the rate at `confidence`; nil when there were no trials.
  public var interval: (low: Double, high: Double)? {
    ClopperPearson.interval(successes: errors, trials: trials, confidence: confidence)
  }
}
