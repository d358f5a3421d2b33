import Capture
import Foundation
import Imaging
import TestSupport
import Testing

/// A frame as the recording tests compare it: Y4M sources reuse their
/// pixel buffer, so pixels are copied out.
enum RecordedPayload: Equatable {
  case jpeg([UInt8])
  case image(width: Int, height: Int, pixels: [UInt8])
  case unreadable(String)

  var isUnreadable: Bool {
    if case .unreadable = self { return true }
    return false
  }

  var jpegBytes: [UInt8]? {
    if case .jpeg(let bytes) = self { return bytes }
    return nil
  }
}

struct RecordedFrame: Equatable {
  var index: Int64
  var t: Double
  var payload: RecordedPayload
}

/// Real bytes for the recording tests: the fixture JPEGs and helpers that
/// build files from them.
enum RecordingTestData {
  static let fixtureNames = ["0001.jpg", "0002.jpg", "0003.jpg", "0027.jpg", "0040.jpg"]

  /// The five fixture frames (640×360), in name order.
  static let fixtureFrames: [[UInt8]] = fixtureNames.map { name in
    let path = packageRootPath + "/Tests/Fixtures/frames/" + name
    return [UInt8](FileManager.default.contents(atPath: path)!)
  }

  /// A folder holding just the five fixture frames under their own names
  /// (the fixture folder itself may gain other frames).
  static func fixtureFolder(in folder: TemporaryFolder) throws -> String {
    let path = try folder.subfolder("frames")
    for (name, frame) in zip(fixtureNames, fixtureFrames) { try write(frame, to: path + "/" + name) }
    return path
  }

  static func readAll(_ source: any FrameSource) throws -> [RecordedFrame] {
    var frames: [RecordedFrame] = []
    while let frame = try source.next() {
      let payload: RecordedPayload
      switch frame.payload {
      case .jpeg(let bytes): payload = .jpeg(bytes)
      case .image(let buffer):
        payload = .image(width: buffer.width, height: buffer.height, pixels: Array(buffer.bytes))
      case .unreadable(let reason): payload = .unreadable(reason)
      }
      frames.append(RecordedFrame(index: frame.index, t: frame.t, payload: payload))
      // A runaway reader must fail the test, not hang it.
      if frames.count > 10_000 { break }
    }
    return frames
  }

  static func readAll(path: String, fps: Double? = nil) throws -> [RecordedFrame] {
    let source = try RecordingSource.open(path: path, fps: fps)
    defer { source.close() }
    return try readAll(source)
  }

  static func write(_ bytes: [UInt8], to path: String) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
  }

  static func read(_ path: String) -> [UInt8] {
    [UInt8](FileManager.default.contents(atPath: path) ?? Data())
  }

  /// Writes the fixture frames into an AVI with AVIWriter at `fps`, with the
  /// given capture times, and returns its path.
  @discardableResult
  static func writeAVI(
    in folder: TemporaryFolder, name: String = "clip.avi", fps: Double = 30, times: [Double]? = nil,
    frames: [[UInt8]] = fixtureFrames
  ) throws -> String {
    let path = folder.file(name)
    let writer = try AVIWriter(path: path, width: 640, height: 360, fps: fps)
    for (index, frame) in frames.enumerated() {
      try writer.append(jpeg: frame, t: times?[index] ?? Double(index) / fps)
    }
    try writer.finish()
    return path
  }

  static func uint32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
    UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
      | UInt32(bytes[offset + 3]) << 24
  }

  static func fourCC(_ bytes: [UInt8], _ offset: Int) -> String {
    String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self)
  }

  /// A Y4M stream: `header` after "YUV4MPEG2 ", then one FRAME per entry of
  /// `frames` (pixel bytes, written as given so that tests can cut them short).
  static func y4m(header: String, frames: [[UInt8]]) -> [UInt8] {
    var bytes = Array("YUV4MPEG2 \(header)\n".utf8)
    for frame in frames {
      bytes += Array("FRAME\n".utf8)
      bytes += frame
    }
    return bytes
  }

  /// Distinct 4:2:0 pixels for frame `seed` of a `width`×`height` video.
  static func yuvFrame(width: Int, height: Int, seed: Int) -> [UInt8] {
    let count = PixelFormat.yuv420p.byteCount(width: width, height: height)
    return (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ seed &* 31) }
  }
}

extension RecordingTestData {
  /// Reads four frames of `source`, each a copy of `frame`: a frame let go
  /// lends its storage to the frame after next, a frame still held keeps
  /// its bytes (a reader keeps two frames' storage in turn).
  static func expectFramesReuseTheirStorage(_ source: any FrameSource, frame jpeg: [UInt8]) throws {
    func address(_ frame: CapturedFrame?) -> Int? {
      guard case .jpeg(let bytes)? = frame?.payload else { return nil }
      return bytes.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) }
    }
    var first = try source.next()
    let firstAddress = try #require(address(first))
    first = nil
    let second = try source.next()
    #expect(address(second) != firstAddress)
    let third = try source.next()
    #expect(address(third) == firstAddress, "the first frame's storage, let go, holds the third")
    // The second is still held: the fourth goes elsewhere, and the second keeps its bytes.
    let fourth = try source.next()
    #expect(address(fourth) != address(second))
    for frame in [second, third, fourth] {
      guard case .jpeg(let bytes)? = frame?.payload else {
        Issue.record("not a JPEG frame")
        continue
      }
      #expect(bytes == jpeg)
    }
  }
}
