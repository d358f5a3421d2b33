import Foundation

/// The camera's errors, worded once so that `workbench run` and
/// `workbench devices` say the same thing about the same problem.
enum CameraErrors {
  /// A failed call while opening or setting up the device, by its errno.
  static func setup(_ error: V4L2Error, path: String) -> CaptureError {
    if error.operation == "open" && [ENOENT, ENXIO, ENODEV].contains(error.code) { return noSuchDevice(path) }
    switch error.code {
    case EACCES, EPERM:
      return CaptureError(
        .permissionDenied, source: path, "permission denied",
        help: "cameras belong to the 'video' group: run `sudo usermod -aG video $USER`, then log out and in again")
    case EBUSY:
      return CaptureError(
        .busy, source: path, "the camera is held by another program (\(error))",
        help: "close the other program; `fuser \(path)` shows which one holds it")
    // libv4l2 queries the capabilities inside open, so either call can be
    // the one that finds out the file is no video device.
    case ENOTTY where ["open", "VIDIOC_QUERYCAP"].contains(error.operation),
      EINVAL where error.operation == "VIDIOC_QUERYCAP":
      return CaptureError(
        .notACaptureDevice, source: path, "not a video device",
        help: "`workbench devices` lists the cameras")
    case ENODEV, EIO:
      return CaptureError(
        .disconnected, source: path, "the camera went away while it was being set up (\(error))",
        help: "check the cable and `workbench devices`, then try again")
    case ENOSPC where error.operation == "VIDIOC_STREAMON":
      return CaptureError(
        .busy, source: path, "not enough USB bandwidth to stream (\(error))",
        help: "ask for a smaller --size or a lower --fps, or plug the camera into another USB port")
    default:
      return CaptureError(.io, source: path, "camera error: \(error)")
    }
  }

  static func noSuchDevice(_ path: String) -> CaptureError {
    CaptureError(
      .noSuchDevice, source: path, "no such video device",
      help: "`workbench devices` lists the cameras connected to this machine")
  }

  static func notACaptureDevice(_ path: String, _ capabilities: V4L2Capabilities) -> CaptureError {
    let what =
      capabilities.flags.contains(.videoCapture)
      ? "does not support streaming capture" : "is not a video capture device"
    let node = capabilities.flags.contains(.metadataCapture) ? " (it is a metadata node)" : ""
    return CaptureError(
      .notACaptureDevice, source: path, "\(capabilities.card) (\(capabilities.driver)) \(what)\(node)",
      help: "cameras often have several nodes; `workbench devices` shows which ones capture")
  }

  static func disconnected(_ path: String, _ error: V4L2Error, framesDelivered: Int64) -> CaptureError {
    CaptureError(
      .disconnected, source: path, "the camera was disconnected after \(framesDelivered) frames (\(error))",
      help: "plug it back in and start again; `workbench devices` shows whether it is back")
  }

  static func stalled(_ path: String, seconds: Double) -> CaptureError {
    CaptureError(
      .io, source: path, "the camera sent no frame for \(String(format: "%.0f", seconds)) s",
      help: "check the cable and the lighting (some cameras slow down in the dark) and that no other program uses it")
  }
}
