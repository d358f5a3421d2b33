import Capture
import Foundation
import SimulatedCamera
import Testing

private let hd = V4L2Size(width: 1280, height: 720)

private func openError(_ device: ScriptedV4L2Device, path: String = "/dev/video0") -> CaptureError? {
  #expect(throws: CaptureError.self) { try CameraSource.open(path: path, device: device) }
}

@Suite struct CameraOpenErrorTests {
  @Test func aMissingDeviceIsNamedWithWhereToLook() {
    let device = ScriptedV4L2Device(cameras: [:])
    let error = openError(device, path: "/dev/video3")
    #expect(error?.kind == .noSuchDevice)
    #expect(error?.source == "/dev/video3")
    #expect(error?.message == "no such video device")
    #expect(error?.help == "`workbench devices` lists the cameras connected to this machine")
    #expect(error?.description.hasPrefix("/dev/video3: no such video device") == true)
  }

  @Test func permissionDeniedNamesTheVideoGroup() {
    let device = ScriptedV4L2Device(cameras: ["/dev/video0": ScriptedCamera()], openErrors: ["/dev/video0": EACCES])
    let error = openError(device)
    #expect(error?.kind == .permissionDenied)
    #expect(error?.message == "permission denied")
    #expect(error?.help?.contains("'video' group") == true)
    #expect(error?.help?.contains("sudo usermod -aG video $USER") == true)
    #expect(error?.help?.contains("log out and in again") == true)
  }

  @Test func aBusyDeviceSaysHowToFindTheProgramHoldingIt() {
    let device = ScriptedV4L2Device(cameras: ["/dev/video2": ScriptedCamera()], openErrors: ["/dev/video2": EBUSY])
    let error = openError(device, path: "/dev/video2")
    #expect(error?.kind == .busy)
    #expect(error?.message.hasPrefix("the camera is held by another program") == true)
    #expect(error?.help == "close the other program; `fuser /dev/video2` shows which one holds it")
  }

  @Test(arguments: [ScriptedOperation.setFormat, .requestBuffers, .startStreaming])
  func busyWhileSettingUpIsBusyAndReleasesEverything(at operation: ScriptedOperation) {
    let device = ScriptedV4L2Device(ScriptedCamera(formats: [.mjpeg([hd])], failures: [operation: EBUSY]))
    let error = openError(device)
    #expect(error?.kind == .busy)
    #expect(error?.help?.contains("fuser /dev/video0") == true)
    #expect(device.openHandleCount == 0)
    #expect(device.mappedBufferCount == 0)
  }

  @Test func aMetadataNodeIsNotACaptureDevice() {
    let device = ScriptedV4L2Device(ScriptedCamera(capabilities: ScriptedCamera.metadataNode))
    let error = openError(device)
    #expect(error?.kind == .notACaptureDevice)
    #expect(
      error?.message == "Scripted Webcam (uvcvideo) is not a video capture device (it is a metadata node)")
    #expect(error?.help?.contains("workbench devices") == true)
    #expect(device.openHandleCount == 0)
  }

  @Test func somethingThatIsNotVideoAtAllIsNotACaptureDevice() {
    let device = ScriptedV4L2Device(ScriptedCamera(failures: [.queryCapabilities: ENOTTY]))
    let error = openError(device)
    #expect(error?.kind == .notACaptureDevice)
    #expect(error?.message == "not a video device")
  }

  @Test func runningOutOfUSBBandwidthSaysWhatToTry() {
    let device = ScriptedV4L2Device(ScriptedCamera(formats: [.mjpeg([hd])], failures: [.startStreaming: ENOSPC]))
    let error = openError(device)
    #expect(error?.kind == .busy)
    #expect(error?.help?.contains("--size") == true)
  }

  @Test func anUnplugDuringSetupIsADisconnection() {
    let device = ScriptedV4L2Device(ScriptedCamera(formats: [.mjpeg([hd])], failures: [.queryBuffer: ENODEV]))
    let error = openError(device)
    #expect(error?.kind == .disconnected)
    #expect(device.openHandleCount == 0)
  }

  @Test func noBuffersGrantedIsAnInputError() {
    let device = ScriptedV4L2Device(ScriptedCamera(formats: [.mjpeg([hd])], grantedBuffers: 0))
    let error = openError(device)
    #expect(error?.kind == .io)
    #expect(error?.message == "the driver granted no capture buffers")
  }
}
