import Capture
import JSONCore

/// `expect.recording`: what became of the run's recording (a scenario with
/// `record = POLICY`), as the result's `outputs.recording` says. `"kept"`
/// or `"discarded"`, or `{ kept = true, frames = 72 }` where `frames` is a
/// number, `{ min =, max = }`, or `"all"`: every frame the flow was given.
public struct RecordingExpectation: Sendable {
  public var kept: Bool?
  public var frames: Expectations.Bounds?
  /// The recording holds every frame the flow was given (`frames = "all"`).
  public var allFrames = false

  init?(_ value: JSONValue) {
    switch value {
    case .string("kept"): kept = true
    case .string("discarded"): kept = false
    case .object(let object):
      guard object.keys.allSatisfy(["kept", "frames"].contains) else { return nil }
      if let flag = object["kept"] {
        guard let flag = flag.boolValue else { return nil }
        kept = flag
      }
      switch object["frames"] {
      case nil: break
      case .string("all")?: allFrames = true
      case .object(let range)?:
        frames = Expectations.Bounds(min: range["min"]?.doubleValue, max: range["max"]?.doubleValue)
      case let exact?:
        guard let count = exact.doubleValue else { return nil }
        frames = Expectations.Bounds(min: count, max: count)
      }
      if kept == nil && frames == nil && !allFrames { return nil }
    default: return nil
    }
  }

  static let help =
    "recording takes \"kept\", \"discarded\" or { kept = true, frames = N | { min =, max = } | \"all\" }"

  /// Why the run's result does not meet it; nil when it does.
  func check(_ result: JSONValue?) -> String? {
    guard let recording = result?["outputs"]?["recording"] else {
      return "expected the result to name the recording (outputs.recording), but it does not"
    }
    let wasKept = recording["kept"]?.boolValue == true
    let frames = recording["frames"]?.doubleValue ?? 0
    let said =
      wasKept
      ? "it was kept with \(Int(frames)) frames"
      : "it was not kept: \(recording["why"]?.stringValue ?? recording["error"]?.stringValue ?? "no reason given")"
    if let kept, kept != wasKept {
      return
        "expected the recording to be \(kept ? "kept" : "discarded") (--record-policy \(recording["policy"]?.stringValue ?? "?")), but \(said)"
    }
    if allFrames, let given = result?["frames"]?.doubleValue, !wasKept || frames != given {
      return "expected the recording to hold all \(Int(given)) frames the flow was given, but \(said)"
    }
    if let bounds = self.frames {
      if let min = bounds.min, frames < min { return "expected at least \(Int(min)) recorded frames, but \(said)" }
      if let max = bounds.max, frames > max { return "expected at most \(Int(max)) recorded frames, but \(said)" }
    }
    return nil
  }

  /// The `record` key of a scenario: a `--record-policy` name.
  static func policy(_ value: JSONValue) -> RecordPolicy? {
    value.stringValue.flatMap(RecordPolicy.init(rawValue:))
  }
}
