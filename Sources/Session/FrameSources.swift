import Capture
import Diagnostics
import Foundation
import Settings

/// Opens the frame source the user named: a recording, or a camera.
public enum FrameSources {
  /// The source, and whether it is live (a camera: read on its own thread,
  /// dropping frames when the estimators fall behind).
  public static func open(_ input: InputSpec, recordingFPS: Double?) throws(WorkbenchError) -> (
    any FrameSource, live: Bool
  ) {
    do {
      switch input {
      case .file(let path):
        return (try RecordingSource.open(path: path, fps: recordingFPS), false)
      case .camera(let device, let width, let height, let fps):
        let size = width.flatMap { w in height.map { h in (width: w, height: h) } }
        return (try CameraSource.open(path: device, size: size, fps: fps), true)
      }
    } catch {
      throw FrameInput.workbenchError(error)
    }
  }

  /// What to tell a user who gave `--fps` for an input that gives its frames'
  /// times itself, which the rate then does not change; nil when the rate is used.
  public static func unusedRate(_ fps: Double?, path: String, timing: String?, stated: Double?) -> String? {
    guard let fps, timing != "fps" else { return nil }
    let rate = fps.formatted(.number.precision(.fractionLength(0...3)).grouping(.never))
    let reason: String
    switch timing {
    case "container":
      reason = "it is a video file and its frames' own timestamps are used"
    case "sidecar":
      reason = "the timestamps sidecar beside it gives the frames' times"
    case "header":
      let statedRate = stated.map {
        " (\($0.formatted(.number.precision(.fractionLength(0...3)).grouping(.never))) fps)"
      }
      reason = "its header states its rate\(statedRate ?? ""), which is used"
    case "trace":
      reason = "it is a measurement trace and its frames carry their own times ('t')"
    default:
      return nil
    }
    return
      "--fps \(rate) is not used for \(WorkbenchHome.display(path)): \(reason); "
      + "to read frames at another rate, give a timestamps sidecar (docs/inputs.md)"
  }

  /// A source's error as the error a command reports (exit code 4, the file named).
  public static func workbenchError(_ error: CaptureError) -> WorkbenchError {
    FrameInput.workbenchError(error)
  }
}
