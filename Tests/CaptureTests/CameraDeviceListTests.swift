import Capture
import Foundation
import SimulatedCamera
import TestSupport
import Testing

private let hd = V4L2Size(width: 1280, height: 720)
private let vga = V4L2Size(width: 640, height: 480)

/// A webcam (video and metadata nodes), a camera that may not be opened,
/// and one whose node is gone.
private func scriptedMachine() -> ScriptedV4L2Device {
  ScriptedV4L2Device(
    cameras: [
      "/dev/video0": ScriptedCamera(
        formats: [.mjpeg([hd, vga], rates: [30, 15]), .yuyv([vga], rates: [30]), .emulated(.rgb24, [vga])]),
      "/dev/video1": ScriptedCamera(capabilities: ScriptedCamera.metadataNode),
      "/dev/video2": ScriptedCamera(),
    ],
    openErrors: ["/dev/video2": EACCES])
}

private let paths = ["/dev/video0", "/dev/video1", "/dev/video2", "/dev/video3"]

@Suite struct CameraDeviceListTests {
  @Test func describesEachNodeWithFormatsSizesAndRates() {
    let devices = DeviceList.scan(paths: paths, device: scriptedMachine())
    #expect(devices.map(\.path) == paths)
    #expect(devices[0].captures)
    #expect(devices[0].card == "Scripted Webcam")
    #expect(devices[0].formats.map(\.pixelFormat) == ["MJPG", "YUYV", "RGB3"])
    #expect(
      devices[0].formats[0].sizes == [
        VideoDeviceSize(width: 1280, height: 720, framesPerSecond: [30, 15]),
        VideoDeviceSize(width: 640, height: 480, framesPerSecond: [30, 15]),
      ])
    #expect(!devices[1].captures && devices[1].formats.isEmpty && devices[1].problem == nil)
    #expect(devices[2].problem == "cannot open: permission denied")
    #expect(devices[3].problem == "cannot open: no such video device")
  }

  @Test func rendersAReadableListing() {
    let text = DeviceList.render(DeviceList.scan(paths: paths, device: scriptedMachine()))
    let expected = """
      /dev/video0: Scripted Webcam (uvcvideo, usb-0000:00:14.0-1)
        MJPG  Motion-JPEG
          1280x720  30, 15 fps
          640x480   30, 15 fps
        YUYV  YUYV 4:2:2
          640x480  30 fps
        RGB3  RGB3 (emulated) (converted by libv4l)
          640x480  30 fps
      /dev/video1: Scripted Webcam (uvcvideo, usb-0000:00:14.0-1) — not a capture device
      /dev/video2
        cannot open: permission denied
        help: cameras belong to the 'video' group: run `sudo usermod -aG video $USER`, then log out and in again
      /dev/video3
        cannot open: no such video device
        help: `workbench devices` lists the cameras connected to this machine
      """
    #expect(text == expected)
  }

  @Test func rendersJSON() {
    let devices = DeviceList.scan(paths: ["/dev/video0", "/dev/video1", "/dev/video2"], device: scriptedMachine())
    let text = DeviceList.jsonText([devices[1], devices[2]])
    #expect(
      text == #"{"devices":[{"path":"/dev/video1","driver":"uvcvideo","card":"Scripted Webcam","#
        + #""bus":"usb-0000:00:14.0-1","captures":false,"formats":[]},"#
        + #"{"path":"/dev/video2","captures":false,"formats":[],"error":"cannot open: permission denied","#
        + #""help":"cameras belong to the 'video' group: run `sudo usermod -aG video $USER`, then log out and in again"}]}"#
    )
    let webcam = DeviceList.jsonText([devices[0]])
    #expect(
      webcam.contains(
        #"{"pixel_format":"MJPG","description":"Motion-JPEG","compressed":true,"emulated":false,"#
          + #""sizes":[{"width":1280,"height":720,"fps":[30,15]},{"width":640,"height":480,"fps":[30,15]}]}"#))
  }

  @Test func noDevicesIsSaidPlainly() {
    #expect(DeviceList.render([]) == "no video devices found")
    #expect(DeviceList.jsonText([]) == #"{"devices":[]}"#)
  }

  @Test func findsVideoNodesInNumericOrder() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    for name in ["video10", "video2", "video0", "vbi0", "videofoo", "media0"] { try folder.write(name, "") }
    #expect(DeviceList.devicePaths(in: folder.path) == ["video0", "video2", "video10"].map { folder.path + "/" + $0 })
    #expect(DeviceList.devicePaths(in: folder.file("missing")).isEmpty)
  }

  @Test func closesEveryNodeItOpens() {
    let device = scriptedMachine()
    _ = DeviceList.scan(paths: paths, device: device)
    #expect(device.openHandleCount == 0)
  }
}
