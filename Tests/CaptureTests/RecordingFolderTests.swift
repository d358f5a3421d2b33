import Capture
import Foundation
import TestSupport
import Testing

@Suite struct RecordingFolderTests {
  @Test func readsAFolderOfFramesInOrderAtThirtyFramesPerSecond() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = try RecordingTestData.fixtureFolder(in: folder)
    let source = try RecordingSource.open(path: path)
    #expect(source.info.kind == "jpeg-folder")
    #expect(source.info.name == path)
    #expect(source.info.width == 640)
    #expect(source.info.height == 360)
    #expect(source.info.frameCount == 5)
    #expect(source.info.details["timing"] == "default")
    let frames = try RecordingTestData.readAll(source)
    #expect(frames.map(\.index) == [0, 1, 2, 3, 4])
    let expectedTimes: [Double] = (0..<5).map { Double($0) / 30 }
    #expect(frames.map(\.t) == expectedTimes)
    #expect(frames.map(\.payload) == RecordingTestData.fixtureFrames.map { .jpeg($0) })
  }

  @Test func ordersNamesNaturallySoFrame2ComesBeforeFrame10() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let names = ["frame10.jpg", "frame2.jpg", "frame1.jpeg", "frame9.JPG", "frame11.jpg"]
    // Frame N gets fixture N % 5 so the order shows in the bytes.
    for name in names {
      let number = Int(name.filter(\.isNumber))!
      try RecordingTestData.write(RecordingTestData.fixtureFrames[number % 5], to: folder.file(name))
    }
    try folder.write("notes.txt", "not a frame")
    try folder.write(".hidden.jpg", "not a frame either")
    let frames = try RecordingTestData.readAll(path: folder.path)
    let expectedOrder = [1, 2, 9, 10, 11]
    #expect(frames.map(\.payload) == expectedOrder.map { .jpeg(RecordingTestData.fixtureFrames[$0 % 5]) })
  }

  @Test func aBrokenFrameFileIsUnreadableAndTheOthersAreRead() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let frames = RecordingTestData.fixtureFrames
    try RecordingTestData.write(frames[0], to: folder.file("a1.jpg"))
    try RecordingTestData.write(Array(frames[1].prefix(5000)), to: folder.file("a2.jpg"))
    try RecordingTestData.write([], to: folder.file("a3.jpg"))
    try RecordingTestData.write(frames[3], to: folder.file("a4.jpg"))
    let read = try RecordingTestData.readAll(path: folder.path)
    #expect(read.count == 4)
    #expect(read[0].payload == .jpeg(frames[0]))
    #expect(read[1].payload.isUnreadable)
    #expect(read[2].payload.isUnreadable)
    #expect(read[3].payload == .jpeg(frames[3]))
    if case .unreadable(let reason) = read[1].payload { #expect(reason.contains("a2.jpg")) }
  }

  @Test func fpsSetsTheTimesOfAFolder() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let frames = try RecordingTestData.readAll(path: try RecordingTestData.fixtureFolder(in: folder), fps: 12.5)
    #expect(frames.map(\.t) == [0, 0.08, 0.16, 0.24, 0.32])
  }

  @Test func theSidecarInsideTheFolderWinsOverFps() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    for (index, frame) in RecordingTestData.fixtureFrames.prefix(3).enumerated() {
      try RecordingTestData.write(frame, to: folder.file("f\(index).jpg"))
    }
    try folder.write(
      "timestamps.jsonl",
      """
      {"workbench_timestamps":1,"device":"/dev/video0"}
      {"frame":0,"t":100.25}
      {"frame":1,"t":100.3}
      {"frame":2,"t":100.375}

      """)
    let source = try RecordingSource.open(path: folder.path, fps: 10)
    #expect(source.info.details["timing"] == "sidecar")
    #expect(source.info.details["device"] == "/dev/video0")
    #expect(source.info.frameCount == 3)
    let frames = try RecordingTestData.readAll(source)
    #expect(frames.map(\.t) == [100.25, 100.3, 100.375])
  }

  @Test func aFolderWithoutFramesIsAnErrorNamingIt() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    try folder.write("readme.txt", "no frames here")
    #expect {
      _ = try RecordingSource.open(path: folder.path)
    } throws: { error in
      guard let error = error as? CaptureError else { return false }
      return error.kind == .invalidRecording && error.source == folder.path
        && error.description.contains(folder.path) && error.message.contains(".jpg")
        && (error.help ?? "").contains("frame1.jpg")
    }
  }
}
