import Capture
import Foundation
import TestSupport
import Testing

@Suite struct RecordingMJPEGTests {
  let frames = RecordingTestData.fixtureFrames

  @Test func readsConcatenatedJPEGsInOrder() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("clip.mjpeg")
    try RecordingTestData.write(frames.flatMap { $0 }, to: path)
    let source = try RecordingSource.open(path: path)
    #expect(source.info.kind == "mjpeg")
    #expect(source.info.width == 640)
    #expect(source.info.height == 360)
    #expect(source.info.fps == 30)
    let read = try RecordingTestData.readAll(source)
    #expect(read.map(\.payload) == frames.map { .jpeg($0) })
    #expect(read.map(\.index) == [0, 1, 2, 3, 4])
    #expect(read.map(\.t) == (0..<5).map { Double($0) / 30 })
  }

  @Test func garbageBetweenFramesIsSkippedAndATruncatedFrameIsUnreadable() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("damaged.mjpg")
    let garbage = Array("--boundary\r\nContent-Type: image/jpeg\r\n\r\n".utf8) + [0x00, 0xFF, 0x00, 0xD8, 0x12]
    var bytes = garbage + frames[0] + garbage
    bytes += frames[1].prefix(frames[1].count / 2)  // cut in its image data
    bytes += frames[2] + garbage + garbage
    bytes += frames[3].prefix(300)  // cut in its header segments
    bytes += frames[4]
    try RecordingTestData.write(bytes, to: path)
    let read = try RecordingTestData.readAll(path: path)
    #expect(read.count == 5)
    #expect(read.map(\.index) == [0, 1, 2, 3, 4])
    #expect(read[0].payload == .jpeg(frames[0]))
    #expect(read[1].payload.isUnreadable)
    #expect(read[2].payload == .jpeg(frames[2]))
    #expect(read[3].payload.isUnreadable)
    #expect(read[4].payload == .jpeg(frames[4]))
  }

  @Test func aFileCutInsideItsLastFrameEndsWithThatFrameUnreadable() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("cut.mjpeg")
    let whole = frames[0] + frames[1] + frames[2]
    for cut in [frames[0].count + frames[1].count + 10, whole.count - 1, whole.count - 700] {
      try RecordingTestData.write(Array(whole.prefix(cut)), to: path)
      let read = try RecordingTestData.readAll(path: path)
      #expect(read.count == 3)
      #expect(read[0].payload == .jpeg(frames[0]))
      #expect(read[1].payload == .jpeg(frames[1]))
      #expect(read[2].payload.isUnreadable)
    }
  }

  @Test func framesAcrossTheReadBufferAreSplitCorrectly() throws {
    // 80 frames (about 1.3 MB) make images straddle the 1 MiB reads.
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("long.mjpeg")
    let many = (0..<80).map { frames[$0 % 5] }
    try RecordingTestData.write(many.flatMap { $0 }, to: path)
    let read = try RecordingTestData.readAll(path: path)
    #expect(read.map(\.payload) == many.map { .jpeg($0) })
  }

  @Test("a frame let go lends its storage to the frame after next; a frame still held keeps its bytes")
  func framesReuseTheirStorage() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("same.mjpeg")
    try RecordingTestData.write(Array([[UInt8]](repeating: frames[0], count: 5).joined()), to: path)
    let source = try RecordingSource.open(path: path)
    defer { source.close() }
    try RecordingTestData.expectFramesReuseTheirStorage(source, frame: frames[0])
  }

  @Test func aFileIsKnownByItsBytesWhateverItsName() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("frames.bin")
    try RecordingTestData.write(frames[0] + frames[1], to: path)
    let source = try RecordingSource.open(path: path)
    #expect(source.info.kind == "mjpeg")
    #expect(try RecordingTestData.readAll(source).count == 2)
  }

  @Test func theSidecarWinsOverFpsAndFillsFramesItDoesNotList() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("clip.mjpeg")
    try RecordingTestData.write(frames.flatMap { $0 }, to: path)
    try folder.write(
      "clip.mjpeg.timestamps.jsonl",
      """
      {"workbench_timestamps":1,"writer":"test","width":640}
      {"frame":3,"t":7.5}
      {"frame":1,"t":7.0,"note":"extra keys are ignored"}
      {"frame":99,"t":1000}
      """)
    let source = try RecordingSource.open(path: path, fps: 10)
    #expect(source.info.details["timing"] == "sidecar")
    #expect(source.info.details["writer"] == "test")
    let read = try RecordingTestData.readAll(source)
    // Frame 0 is before the first listed frame, 2 and 4 after one: at 1/10 s per frame.
    #expect(read.map(\.t) == [7.0 - 0.1, 7.0, 7.0 + 0.1, 7.5, 7.5 + 0.1])
  }
}
