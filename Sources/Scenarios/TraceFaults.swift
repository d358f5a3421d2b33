import Diagnostics
import Measurements
import Session

extension MeasurementFrame: TimelineItem {
  func showing(_ earlier: MeasurementFrame) -> MeasurementFrame {
    var shown = earlier
    shown.t = t
    shown.index = index
    return shown
  }
}

/// A trace with the scenario's time faults: the flow gets the frames the
/// ``FaultTimeline`` makes of each frame read.
final class FaultyTraceInput: WrappingMeasurementInput {
  let base: any MeasurementInput
  private let timeline: FaultTimeline<MeasurementFrame>
  private var pending: [MeasurementFrame] = []
  private var nextPending = 0
  private var baseEnded = false

  init(_ base: any MeasurementInput, timeline: FaultTimeline<MeasurementFrame>) {
    self.base = base
    self.timeline = timeline
  }

  /// Faults a trace cannot have, by name (pixels, a camera).
  static func unsupported(_ faults: [Fault]) -> [String] {
    faults.compactMap { fault in
      switch fault {
      case .pixels(let degradation, _, _): return "\(degradation)"
      case .occlude: return "occlude"
      case .corrupt: return "corrupt"
      case .unplug: return "unplug"
      case .replay: return "replay"
      default: return nil
      }
    }
  }

  func next(note: (InputNote) -> Void) throws(WorkbenchError) -> MeasurementFrame? {
    while nextPending >= pending.count {
      if baseEnded { return nil }
      if let frame = try base.next(note: note) {
        pending = timeline.items(for: frame)
      } else {
        baseEnded = true
        pending = timeline.remaining()
      }
      nextPending = 0
    }
    defer { nextPending += 1 }
    return pending[nextPending]
  }
}
