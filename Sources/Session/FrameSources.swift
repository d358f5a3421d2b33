import Capture
import Diagnostics

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

  /// A source's error as the error a command reports (exit code 4, the file named).
  public static func workbenchError(_ error: CaptureError) -> WorkbenchError {
    FrameInput.workbenchError(error)
  }
}
