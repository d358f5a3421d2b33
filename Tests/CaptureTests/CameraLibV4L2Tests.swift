import Capture
import Foundation
import TestSupport
import Testing

/// The real libv4l2 path. There is no camera on the machines this runs on,
/// so these only reach the parts that need none: opening, errno handling,
/// ioctls on something that is not a video device, and closing.
@Suite struct CameraLibV4L2Tests {
  @Test func anAbsentNodeIsNoSuchDevice() {
    let error = #expect(throws: CaptureError.self) { try CameraSource.open(path: "/dev/video9") }
    #expect(error?.kind == .noSuchDevice)
    #expect(error?.source == "/dev/video9")
    #expect(error?.help?.contains("workbench devices") == true)
  }

  @Test func openingAnAbsentNodeReportsENOENT() {
    let error = #expect(throws: V4L2Error.self) { try LibV4L2Device().open(path: "/dev/video9") }
    #expect(error == V4L2Error("open", code: ENOENT))
    #expect(error?.description == "open: No such file or directory")
  }

  @Test func aNodeThatIsNotVideoIsNotACaptureDevice() {
    // libv4l2's open already asks for the capabilities and fails with ENOTTY.
    let error = #expect(throws: CaptureError.self) { try CameraSource.open(path: "/dev/null") }
    #expect(error?.kind == .notACaptureDevice)
    #expect(error?.message == "not a video device")
  }

  @Test func ioctlsOnSomethingElseFailWithTheirErrno() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let device = LibV4L2Device()
    // libv4l2 refuses to open it, so it is opened plainly: libv4l2 passes
    // calls on descriptors it does not manage straight to the kernel.
    let descriptor = Glibc.open(try folder.write("not-a-camera", "hello"), O_RDWR)
    try #require(descriptor >= 0)
    let handle = V4L2Handle(fileDescriptor: descriptor)
    defer { device.close(handle) }
    #expect(throws: V4L2Error("VIDIOC_QUERYCAP", code: ENOTTY)) { try device.queryCapabilities(handle) }
    #expect(throws: V4L2Error("VIDIOC_ENUM_FMT", code: ENOTTY)) { try device.formats(handle) }
    #expect(throws: V4L2Error("VIDIOC_S_FMT", code: ENOTTY)) {
      try device.setFormat(handle, V4L2Format(pixelFormat: .mjpeg, width: 640, height: 480))
    }
    #expect(throws: V4L2Error("VIDIOC_DQBUF", code: ENOTTY)) { try device.dequeueBuffer(handle) }
    #expect(throws: V4L2Error("VIDIOC_STREAMON", code: ENOTTY)) { try device.startStreaming(handle) }
    // Not enumerating sizes or rates is not an error: there are none to list.
    #expect(try device.frameSizes(handle, pixelFormat: .mjpeg) == .discrete([]))
    #expect(
      try device.frameIntervals(handle, pixelFormat: .mjpeg, size: V4L2Size(width: 640, height: 480))
        == .discrete([]))
    // A regular file is always readable, so the wait returns at once.
    #expect(try device.waitForFrame(handle, timeoutMilliseconds: 1000))
  }

  @Test func listingAnAbsentNodeGivesTheReason() {
    let devices = DeviceList.scan(paths: ["/dev/video9"])
    #expect(
      devices == [
        VideoDevice(path: "/dev/video9", problem: "cannot open: no such video device", help: devices.first?.help)
      ])
  }
}
