/// What the flow reads now: the measurements of the running step (its
/// `needs`, with the watchers'). The session updates it after each frame;
/// an estimator too costly for every frame (a presentation-attack model,
/// a liveness service) asks it whether to work on the next one.
public final class MeasurementDemand {
  /// Changes whenever `reads` does, so that an estimator can keep its own
  /// answer until then instead of comparing names on every frame.
  public private(set) var version = 0
  /// The running step's reads; nil when the step does not say what it
  /// reads (then it may read anything), empty after the flow.
  public private(set) var reads: [String]? = nil
  /// Whether frames keep coming whatever the run does (a camera, or a
  /// recording paced to its clock): then nothing may hold the loop up.
  public var live = false
  /// Every field is asked for on every frame: a run that measures the whole
  /// input for others to replay (an evaluation's cache) whatever its steps read.
  public var everything = false
  /// Changes when a new flow starts on the same estimators (a restart), so
  /// that they drop what they kept for the last one.
  public private(set) var run = 0
  private var step: Int?
  private var known = false

  public init() {}

  /// The running step (its index in the flow, nil after it) and what it
  /// reads; a no-op while the step stays the same.
  public func update(step: Int?, reads: @autoclosure () -> [String]?) {
    guard !known || step != self.step else { return }
    known = true
    self.step = step
    self.reads = step == nil ? [] : reads()
    version += 1
  }

  /// Drops what it knew, for a new flow on the same estimators (a restart).
  public func forget() {
    known = false
    run += 1
  }

  /// Whether the running step names `field` among what it reads. Only by
  /// name: a group (`face`) reads what is cheap to give it, and a step
  /// that wants a field costing milliseconds a frame (`face.liveness`)
  /// names it.
  public func asks(for field: String) -> Bool {
    guard !everything, let reads else { return true }
    return reads.contains(field)
  }
}

/// An estimator that works only on the frames the flow asks for: the
/// pipeline gives it the run's demand before the first frame.
public protocol DemandDriven: AnyObject {
  func attach(_ demand: MeasurementDemand)
}

/// When an estimator that works only when asked works: on every n-th frame
/// (`every` > 0), or (0) on the frames whose step reads `field`. Call
/// `isDue` once per frame.
public struct DemandSchedule {
  public let every: Int
  public let field: String
  private var frames = 0
  private var version = -1
  private var asked = true

  public init(every: Int, field: String) {
    self.every = every
    self.field = field
  }

  public mutating func isDue(_ demand: MeasurementDemand?) -> Bool {
    frames += 1
    if every > 0 { return (frames - 1) % every == 0 }
    guard let demand else { return true }
    if demand.version != version {
      version = demand.version
      asked = demand.asks(for: field)
    }
    return asked
  }
}
