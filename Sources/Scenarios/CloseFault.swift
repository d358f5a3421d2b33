import Diagnostics
import Measurements
import Session

/// Says when the `close` fault's time has come: a frame at or after it
/// went to the flow.
final class CloseSignal {
  let at: Double
  private(set) var due = false

  init(at: Double) { self.at = at }

  func saw(_ t: Double) { if t >= at { due = true } }
}

/// The input as it is, watched for the `close` fault's time.
final class ClosingInput: WrappingMeasurementInput {
  let base: any MeasurementInput
  private let signal: CloseSignal

  init(_ base: any MeasurementInput, signal: CloseSignal) {
    self.base = base
    self.signal = signal
  }

  func next(note: (InputNote) -> Void) throws(WorkbenchError) -> MeasurementFrame? {
    let frame = try base.next(note: note)
    if let frame { signal.saw(frame.t) }
    return frame
  }
}
