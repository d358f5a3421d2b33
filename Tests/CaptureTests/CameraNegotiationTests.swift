import Foundation
import SimulatedCamera
import Testing

@testable import Capture

private let hd = V4L2Size(width: 1280, height: 720)
private let vga = V4L2Size(width: 640, height: 480)
private let fullHD = V4L2Size(width: 1920, height: 1080)

/// The S_FMT requests a camera received.
private func formatRequests(_ device: ScriptedV4L2Device) -> [V4L2Format] {
  device.calls.compactMap { if case .setFormat(let format) = $0 { return format } else { return nil } }
}

@Suite struct CameraNegotiationTests {
  @Test func prefersMJPEGOverYUYV() throws {
    let device = ScriptedV4L2Device(ScriptedCamera(formats: [.yuyv([hd, vga]), .mjpeg([hd, vga])]))
    let camera = try CameraSource.open(path: "/dev/video0", device: device)
    defer { camera.close() }
    #expect(formatRequests(device).map(\.pixelFormat) == [.mjpeg])
    #expect(camera.format.pixelFormat == .mjpeg)
    #expect(camera.info.details["pixel_format"] == "MJPG")
    #expect(camera.info.kind == "camera")
    #expect(camera.info.name == "/dev/video0")
    #expect(camera.info.details["driver"] == "uvcvideo")
  }

  @Test func takesYUYVWhenThereIsNoMJPEG() throws {
    let device = ScriptedV4L2Device(ScriptedCamera(formats: [.yuyv([vga])]))
    let camera = try CameraSource.open(path: "/dev/video0", device: device)
    defer { camera.close() }
    #expect(formatRequests(device) == [V4L2Format(pixelFormat: .yuyv, width: 640, height: 480)])
    #expect(camera.info.width == 640 && camera.info.height == 480)
  }

  @Test func takesWhatLibv4lConvertsToWhenTheCameraHasNeither() throws {
    let grey = ScriptedFormat(
      V4L2FormatDescription(pixelFormat: V4L2FourCC("GREY"), description: "Greyscale"), sizes: [vga])
    let device = ScriptedV4L2Device(
      ScriptedCamera(formats: [grey, .emulated(.rgb24, [vga]), .emulated(.yuv420, [vga])]))
    let camera = try CameraSource.open(path: "/dev/video0", device: device)
    defer { camera.close() }
    #expect(formatRequests(device).map(\.pixelFormat) == [.yuv420])
    #expect(camera.info.details["converted_by"] == "libv4l")
  }

  @Test func refusesACameraWithNoFormatItCanRead() throws {
    let grey = ScriptedFormat(
      V4L2FormatDescription(pixelFormat: V4L2FourCC("GREY"), description: "Greyscale"), sizes: [vga])
    let device = ScriptedV4L2Device(ScriptedCamera(formats: [grey]))
    let error = #expect(throws: CaptureError.self) { try CameraSource.open(path: "/dev/video0", device: device) }
    #expect(error?.kind == .unsupportedFormat)
    #expect(error?.message.contains("it offers: GREY") == true)
    #expect(device.openHandleCount == 0)
  }

  @Test(arguments: [
    ([fullHD, hd, vga], hd),
    ([fullHD, V4L2Size(width: 800, height: 600), vga], V4L2Size(width: 800, height: 600)),
    ([fullHD, V4L2Size(width: 2560, height: 1440)], fullHD),
  ])
  func defaultSizeIs720pElseTheLargestBelowElseTheFirst(offered: [V4L2Size], expected: V4L2Size) throws {
    let device = ScriptedV4L2Device(ScriptedCamera(formats: [.mjpeg(offered)]))
    let camera = try CameraSource.open(path: "/dev/video0", device: device)
    defer { camera.close() }
    #expect(formatRequests(device).map(\.size) == [expected])
    #expect(camera.info.width == expected.width && camera.info.height == expected.height)
  }

  @Test func honoursTheRequestedSizeAndRate() throws {
    let device = ScriptedV4L2Device(ScriptedCamera(formats: [.mjpeg([hd, vga], rates: [30, 15])]))
    let camera = try CameraSource.open(path: "/dev/video0", size: (640, 480), fps: 15, device: device)
    defer { camera.close() }
    #expect(formatRequests(device) == [V4L2Format(pixelFormat: .mjpeg, width: 640, height: 480)])
    #expect(device.calls.contains(.setStreamParameters(V4L2Fraction(numerator: 1, denominator: 15))))
    #expect(camera.info.fps == 15)
    #expect(camera.info.width == 640)
  }

  @Test func takesYUYVWhenOnlyYUYVOffersTheRequestedSize() throws {
    let small = V4L2Size(width: 320, height: 240)
    let device = ScriptedV4L2Device(ScriptedCamera(formats: [.mjpeg([hd]), .yuyv([small, vga])]))
    let camera = try CameraSource.open(path: "/dev/video0", size: (320, 240), device: device)
    defer { camera.close() }
    #expect(formatRequests(device) == [V4L2Format(pixelFormat: .yuyv, width: 320, height: 240)])
  }

  @Test func refusesASizeNoFormatOffersAndListsTheSizesThereAre() throws {
    let device = ScriptedV4L2Device(ScriptedCamera(formats: [.mjpeg([hd, vga]), .yuyv([vga])]))
    let error = #expect(throws: CaptureError.self) {
      try CameraSource.open(path: "/dev/video0", size: (1920, 1080), device: device)
    }
    #expect(error?.kind == .unsupportedFormat)
    #expect(error?.message == "the camera does not offer 1920x1080; it offers MJPG: 1280x720, 640x480; YUYV: 640x480")
    #expect(error?.help?.contains("--size") == true)
    #expect(formatRequests(device).isEmpty)
    #expect(device.openHandleCount == 0)
  }

  @Test func refusesASizeTheDriverReplacesWhenItListsNoSizes() throws {
    var camera = ScriptedCamera(formats: [.mjpeg([hd, vga])])
    camera.listsSizes = false
    let device = ScriptedV4L2Device(camera)
    let error = #expect(throws: CaptureError.self) {
      try CameraSource.open(path: "/dev/video0", size: (1000, 700), device: device)
    }
    #expect(error?.kind == .unsupportedFormat)
    #expect(error?.message == "the driver refused 1000x700 in MJPG and offered 1280x720 instead")
    #expect(error?.help == "pass --size 1280x720, or leave --size out")
  }

  @Test func asksFor720pWhenTheDriverListsNoSizes() throws {
    var camera = ScriptedCamera(formats: [.mjpeg([vga, hd])])
    camera.listsSizes = false
    let device = ScriptedV4L2Device(camera)
    let source = try CameraSource.open(path: "/dev/video0", device: device)
    defer { source.close() }
    #expect(formatRequests(device).map(\.size) == [hd])
  }

  @Test func goesOnAtTheCamerasOwnRateWhenTheRateIsRefused() throws {
    let device = ScriptedV4L2Device(
      ScriptedCamera(formats: [.mjpeg([hd], rates: [30])], failures: [.setStreamParameters: EINVAL]))
    let camera = try CameraSource.open(path: "/dev/video0", fps: 60, device: device)
    defer { camera.close() }
    #expect(camera.info.fps == 30)
    #expect(camera.info.details["requested_fps"] == "60.0")
  }

  @Test func reportsTheRateInForceWhenTheDriverCannotSetOne() throws {
    let device = ScriptedV4L2Device(
      ScriptedCamera(
        formats: [.mjpeg([hd], rates: [30, 15])], canSetFrameRate: false,
        timePerFrame: V4L2Fraction(numerator: 1, denominator: 25)))
    let camera = try CameraSource.open(path: "/dev/video0", fps: 15, device: device)
    defer { camera.close() }
    #expect(camera.info.fps == 25)
  }

  @Test func requestsFourMappedBuffersAndStreams() throws {
    let device = ScriptedV4L2Device(ScriptedCamera(formats: [.mjpeg([hd])]))
    let camera = try CameraSource.open(path: "/dev/video0", device: device)
    defer { camera.close() }
    let setup = device.calls.drop { $0 != .requestBuffers(4) }
    #expect(
      Array(setup) == [
        .requestBuffers(4), .queryBuffer(0), .map(0), .queryBuffer(1), .map(1), .queryBuffer(2), .map(2),
        .queryBuffer(3), .map(3), .queueBuffer(0), .queueBuffer(1), .queueBuffer(2), .queueBuffer(3),
        .startStreaming,
      ])
    #expect(camera.info.details["buffers"] == "4")
  }

  @Test func framesPerSecondBecomeExactTimesPerFrame() {
    #expect(V4L2Fraction(framesPerSecond: 30) == V4L2Fraction(numerator: 1, denominator: 30))
    #expect(V4L2Fraction(framesPerSecond: 29.97) == V4L2Fraction(numerator: 100, denominator: 2997))
    #expect(V4L2Fraction(framesPerSecond: 7.5) == V4L2Fraction(numerator: 2, denominator: 15))
  }

  @Test func rangesOfSizesAreMatchedOnTheirSteps() {
    let range = V4L2FrameSizes.stepwise(
      minimum: V4L2Size(width: 160, height: 120), maximum: fullHD, step: V4L2Size(width: 16, height: 8))
    #expect(CameraNegotiation.defaultSize(of: range) == V4L2Size(width: 1280, height: 720))
    #expect(CameraNegotiation.offers(range, vga))
    #expect(!CameraNegotiation.offers(range, V4L2Size(width: 641, height: 480)))
    let small = V4L2FrameSizes.stepwise(
      minimum: V4L2Size(width: 160, height: 120), maximum: vga, step: V4L2Size(width: 1, height: 1))
    #expect(CameraNegotiation.defaultSize(of: small) == vga)
  }

  @Test func fourCharacterCodesReadBack() {
    #expect(V4L2FourCC.mjpeg.description == "MJPG")
    #expect(V4L2FourCC.rgb24.description == "RGB3")
    #expect(V4L2FourCC("Y8").description == "Y8")
    #expect(V4L2FourCC(rawValue: 0x4750_4A4D) == .mjpeg)
  }
}
