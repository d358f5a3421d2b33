import Capture
import Foundation
import Imaging
import SimulatedCamera
import Testing

private let hd = V4L2Size(width: 1280, height: 720)

private func mjpegCamera(_ events: [ScriptedEvent]) -> ScriptedV4L2Device {
  ScriptedV4L2Device(ScriptedCamera(formats: [.mjpeg([hd])], events: events))
}

private func jpegBytes(_ frame: CapturedFrame?) -> [UInt8]? {
  if case .jpeg(let bytes) = frame?.payload { return bytes }
  return nil
}

private func unreadableReason(_ frame: CapturedFrame?) -> String? {
  if case .unreadable(let reason) = frame?.payload { return reason }
  return nil
}

/// Reads frames until the source throws or ends; returns them and the error.
private func readAll(_ source: CameraSource) -> ([CapturedFrame], CaptureError?) {
  var frames: [CapturedFrame] = []
  do {
    while let frame = try source.next() { frames.append(frame) }
  } catch {
    return (frames, error)
  }
  return (frames, nil)
}

@Suite struct CameraStreamingTests {
  @Test func dequeuesAndRequeuesEachBufferInTurn() throws {
    let frames = ScriptedFrame.jpegs(6)
    let device = mjpegCamera(frames.map { .frame($0) })
    let camera = try CameraSource.open(path: "/dev/video0", device: device)
    defer { camera.close() }
    let start = device.calls.count
    for expected in frames { #expect(jpegBytes(try camera.next()) == expected.bytes) }
    let bufferCalls = device.calls[start...].filter { $0 != .waitForFrame }
    #expect(
      Array(bufferCalls) == [
        .dequeueBuffer(0), .queueBuffer(0), .dequeueBuffer(1), .queueBuffer(1), .dequeueBuffer(2), .queueBuffer(2),
        .dequeueBuffer(3), .queueBuffer(3), .dequeueBuffer(0), .queueBuffer(0), .dequeueBuffer(1), .queueBuffer(1),
      ])
  }

  @Test func timesAreSecondsSinceTheFirstFrameAndNeverGoBack() throws {
    let start: Int64 = 1_000_000_000
    let stamps: [Int64] = [start, start + 33_333, start + 66_667, start + 50_000, start + 133_333]
    let device = mjpegCamera(stamps.map { .frame(.jpeg(1, atMicroseconds: $0)) })
    let camera = try CameraSource.open(path: "/dev/video0", device: device)
    defer { camera.close() }
    var times: [Double] = []
    for _ in stamps { times.append(try #require(try camera.next()).t) }
    #expect(times[0] == 0)
    #expect(abs(times[1] - 0.033333) < 1e-9)
    #expect(abs(times[4] - 0.133333) < 1e-9)
    // The driver's clock stepped back at the fourth frame: the time holds still.
    #expect(times[3] == times[2])
    #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })
  }

  @Test func sequenceGapsShowAsIndexGaps() throws {
    let sequences: [UInt32] = [10, 11, 14, 15, 15, UInt32.max, 0]
    let device = mjpegCamera(
      sequences.enumerated().map { .frame(.jpeg(1, atMicroseconds: Int64($0.offset) * 33_333, sequence: $0.element)) })
    let camera = try CameraSource.open(path: "/dev/video0", device: device)
    defer { camera.close() }
    var indices: [Int64] = []
    for _ in sequences { indices.append(try #require(try camera.next()).index) }
    // A repeated sequence still moves on by one; the counter wraps around.
    #expect(indices == [0, 1, 4, 5, 6, 7, 8])
  }

  @Test func damagedAndEmptyBuffersAreUnreadableAndStillRequeued() throws {
    var damaged = ScriptedFrame.jpeg(1, atMicroseconds: 1_000)
    damaged.flags.insert(.error)
    var empty = ScriptedFrame.jpeg(2, atMicroseconds: 34_333)
    empty.bytesUsed = 0
    let good = ScriptedFrame.jpeg(3, atMicroseconds: 67_666)
    let device = mjpegCamera([.frame(damaged), .frame(empty), .frame(good)])
    let camera = try CameraSource.open(path: "/dev/video0", device: device)
    defer { camera.close() }
    #expect(unreadableReason(try camera.next()) == "the driver marked the frame as damaged")
    #expect(unreadableReason(try camera.next()) == "the driver delivered an empty buffer")
    #expect(jpegBytes(try camera.next()) == good.bytes)
    #expect(device.calls.filter { if case .queueBuffer = $0 { return true } else { return false } }.count == 4 + 3)
  }

  @Test func reusesTheJPEGArrayOnceTheCallerLetsGo() throws {
    let device = mjpegCamera(ScriptedFrame.jpegs(2).map { .frame($0) })
    let camera = try CameraSource.open(path: "/dev/video0", device: device)
    defer { camera.close() }
    let first = try #require(jpegBytes(try camera.next())).withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
    let second = try #require(jpegBytes(try camera.next())).withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
    #expect(first == second)
  }

  @Test func convertsYUYVToPlanarYUV420() throws {
    // 4×2 pixels, rows padded to 12 bytes. Pairs are Y0 U Y1 V.
    let rows: [[UInt8]] = [
      [10, 100, 20, 200, 30, 110, 40, 210, 0xEE, 0xEE, 0xEE, 0xEE],
      [50, 102, 60, 203, 70, 111, 80, 212, 0xEE, 0xEE, 0xEE, 0xEE],
    ]
    let device = ScriptedV4L2Device(
      ScriptedCamera(
        formats: [.yuyv([V4L2Size(width: 4, height: 2)])],
        events: [
          .frame(ScriptedFrame(rows.flatMap { $0 }, timestampMicroseconds: 5)),
          .frame(ScriptedFrame(rows.flatMap { $0 }, timestampMicroseconds: 9)),
        ],
        rowPadding: 4))
    let camera = try CameraSource.open(path: "/dev/video0", device: device)
    defer { camera.close() }
    guard case .image(let image) = try camera.next()?.payload else {
      Issue.record("expected an image")
      return
    }
    #expect(image.format == .yuv420p)
    #expect(image.width == 4 && image.height == 2)
    #expect(Array(image.bytes) == [10, 20, 30, 40, 50, 60, 70, 80, 101, 111, 202, 211])
    // The next frame lands in the same buffer.
    guard case .image(let again) = try camera.next()?.payload else {
      Issue.record("expected an image")
      return
    }
    #expect(again === image)
  }

  @Test func convertsAnOddHeightWithTheLastRowAlone() throws {
    let rows: [UInt8] = [1, 10, 2, 20, 3, 30, 4, 40, 5, 50, 6, 60]  // 2×3
    let device = ScriptedV4L2Device(
      ScriptedCamera(
        formats: [.yuyv([V4L2Size(width: 2, height: 3)])],
        events: [.frame(ScriptedFrame(rows, timestampMicroseconds: 5))]))
    let camera = try CameraSource.open(path: "/dev/video0", device: device)
    defer { camera.close() }
    guard case .image(let image) = try camera.next()?.payload else {
      Issue.record("expected an image")
      return
    }
    // Chroma: rows 0 and 1 averaged (rounded), then row 2 alone.
    #expect(Array(image.bytes) == [1, 2, 3, 4, 5, 6, 20, 50, 30, 60])
  }

  @Test func aShortRawFrameIsUnreadable() throws {
    let device = ScriptedV4L2Device(
      ScriptedCamera(
        formats: [.yuyv([V4L2Size(width: 4, height: 2)])],
        events: [.frame(ScriptedFrame([1, 2, 3], timestampMicroseconds: 5))]))
    let camera = try CameraSource.open(path: "/dev/video0", device: device)
    defer { camera.close() }
    #expect(unreadableReason(try camera.next()) == "short YUYV frame: 3 bytes for 4x2")
  }

  @Test func rideOutAFewEmptyWaits() throws {
    let device = mjpegCamera([
      .timeout, .timeout, .wouldBlock, .timeout, .timeout, .frame(.jpeg(7, atMicroseconds: 1)),
    ])
    let camera = try CameraSource.open(path: "/dev/video0", device: device)
    defer { camera.close() }
    #expect(jpegBytes(try camera.next()) == [0xFF, 0xD8, 7, 0xFF, 0xD9])
  }

  @Test func giveUpOnACameraThatStopsSendingFrames() throws {
    let device = mjpegCamera([.frame(.jpeg(1, atMicroseconds: 1))])
    let camera = try CameraSource.open(path: "/dev/video0", device: device)
    defer { camera.close() }
    let (frames, error) = readAll(camera)
    #expect(frames.count == 1)
    #expect(error?.kind == .io)
    #expect(error?.message == "the camera sent no frame for 5 s")
    #expect(device.calls.filter { $0 == .waitForFrame }.count == 1 + 5)
  }

  @Test func anUnplugAfterThreeFramesGivesThreeFramesThenDisconnected() throws {
    let device = mjpegCamera(ScriptedFrame.jpegs(3).map { .frame($0) } + [.unplug])
    let camera = try CameraSource.open(path: "/dev/video0", device: device)
    let (frames, error) = readAll(camera)
    #expect(frames.map(\.index) == [0, 1, 2])
    #expect(error?.kind == .disconnected)
    #expect(error?.source == "/dev/video0")
    #expect(error?.message.hasPrefix("the camera was disconnected after 3 frames") == true)
    #expect(error?.help?.contains("workbench devices") == true)
    // Asking again repeats the error rather than touching a dead device.
    #expect(throws: error!) { try camera.next() }
    camera.close()
    camera.close()
    #expect(device.mappedBufferCount == 0)
    #expect(device.openHandleCount == 0)
    #expect(device.calls.filter { $0 == .close }.count == 1)
    #expect(device.calls.contains(.stopStreaming))
  }

  @Test(arguments: [EIO, ENODEV])
  func aFailedDequeueMidRunIsADisconnection(code: Int32) throws {
    let device = mjpegCamera([.frame(.jpeg(1, atMicroseconds: 1)), .failure(code)])
    let camera = try CameraSource.open(path: "/dev/video0", device: device)
    defer { camera.close() }
    let (frames, error) = readAll(camera)
    #expect(frames.count == 1)
    #expect(error?.kind == .disconnected)
  }

  @Test func aFailedWaitIsADisconnection() throws {
    let device = ScriptedV4L2Device(ScriptedCamera(formats: [.mjpeg([hd])], failures: [.waitForFrame: ENODEV]))
    let camera = try CameraSource.open(path: "/dev/video0", device: device)
    defer { camera.close() }
    #expect(throws: CaptureError.self) { try camera.next() }
  }

  @Test func closeStopsUnmapsAndClosesAndThenTheSourceHasEnded() throws {
    let device = mjpegCamera(ScriptedFrame.jpegs(2).map { .frame($0) })
    let camera = try CameraSource.open(path: "/dev/video0", device: device)
    _ = try camera.next()
    camera.close()
    #expect(Array(device.calls.suffix(6)) == [.stopStreaming, .unmap(0), .unmap(1), .unmap(2), .unmap(3), .close])
    #expect(try camera.next() == nil)
    camera.close()
    #expect(device.openHandleCount == 0)
  }

  @Test func closingOnDeinitReleasesTheDevice() throws {
    let device = mjpegCamera([])
    do { _ = try CameraSource.open(path: "/dev/video0", device: device) }
    #expect(device.openHandleCount == 0)
    #expect(device.mappedBufferCount == 0)
  }
}
