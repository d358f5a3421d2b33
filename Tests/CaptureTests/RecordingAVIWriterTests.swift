import Capture
import Foundation
import TestSupport
import Testing

@Suite struct RecordingAVIWriterTests {
  let frames = RecordingTestData.fixtureFrames

  @Test func thePathHoldsNothingUntilTheRecordingIsFinished() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("clip.avi")
    let writer = try AVIWriter(path: path, width: 640, height: 360, fps: 30)
    try writer.append(jpeg: frames[0], t: 0.5)
    try writer.append(jpeg: frames[1], t: 0.55)
    #expect(!FileManager.default.fileExists(atPath: path))
    #expect(folder.listing.count == 1)
    #expect(folder.listing.allSatisfy { $0.hasPrefix(".clip.avi.") && $0.hasSuffix(".tmp") })
    try writer.finish()
    #expect(folder.listing == ["clip.avi", "clip.avi.timestamps.jsonl"])
    #expect(writer.frameCount == 2)
  }

  @Test func finishCanBeCalledAgainAndAppendAfterItIsRefused() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("clip.avi")
    let writer = try AVIWriter(path: path, width: 640, height: 360, fps: 30)
    try writer.append(jpeg: frames[0], t: 1)
    try writer.finish()
    let finished = RecordingTestData.read(path)
    try writer.finish()
    #expect(RecordingTestData.read(path) == finished)
    #expect(throws: CaptureError.self) { try writer.append(jpeg: frames[1], t: 2) }
  }

  @Test func aWriterDroppedWithoutFinishStillLeavesAPlayableFile() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("abandoned.avi")
    do {
      let writer = try AVIWriter(path: path, width: 640, height: 360, fps: 15)
      try writer.append(jpeg: frames[2], t: 3)
      try writer.append(jpeg: frames[3], t: 3.1)
    }
    let read = try RecordingTestData.readAll(path: path)
    #expect(read.map(\.payload) == [.jpeg(frames[2]), .jpeg(frames[3])])
    #expect(read.map(\.t) == [3, 3.1])
  }

  @Test func finishFromAnotherThreadWhileAppendingLeavesAWholeFile() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("interrupted.avi")
    let writer = try AVIWriter(path: path, width: 640, height: 360, fps: 30)
    let frames = self.frames
    let appending = Task.detached {
      var appended = 0
      for index in 0..<200 {
        do {
          try writer.append(jpeg: frames[index % 5], t: Double(index))
          appended += 1
        } catch { break }
      }
      return appended
    }
    try await Task.sleep(nanoseconds: 2_000_000)
    try writer.finish()  // As an interrupt handler would.
    let appended = await appending.value
    let read = try RecordingTestData.readAll(path: path)
    #expect(read.count == appended)
    #expect(read.map(\.payload) == (0..<appended).map { .jpeg(frames[$0 % 5]) })
    #expect(read.map(\.t) == (0..<appended).map(Double.init))
  }

  @Test func anEmptyRecordingIsStillAValidFile() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("empty.avi")
    try AVIWriter(path: path, width: 320, height: 240, fps: 30).finish()
    let source = try RecordingSource.open(path: path)
    #expect(source.info.frameCount == 0)
    #expect(source.info.width == 320)
    #expect(try source.next() == nil)
  }

  @Test func theRecordingRefusesToGrowPastItsLimitAndKeepsWhatItHas() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("limited.avi")
    let writer = try AVIWriter(path: path, width: 640, height: 360, fps: 30, maximumBytes: 40_000)
    try writer.append(jpeg: frames[0], t: 0)
    try writer.append(jpeg: frames[1], t: 1)
    #expect {
      try writer.append(jpeg: frames[2], t: 2)
    } throws: { error in
      guard let error = error as? CaptureError else { return false }
      return error.kind == .io && error.source == path && error.message.contains("grow past")
    }
    try writer.finish()
    #expect(RecordingTestData.read(path).count <= 40_000)
    let read = try RecordingTestData.readAll(path: path)
    #expect(read.map(\.payload) == [.jpeg(frames[0]), .jpeg(frames[1])])
    #expect(AVIWriter.maximumFileBytes == 1 << 30)
  }

  @Test func fractionalRatesAreWrittenAsExactFractions() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    for (fps, rate, scale) in [(30.0, 30, 1), (30000.0 / 1001, 30000, 1001), (12.5, 25, 2), (7.3, 73, 10)] {
      let path = folder.file("rate.avi")
      let writer = try AVIWriter(path: path, width: 640, height: 360, fps: fps)
      #expect(Double(writer.rate) / Double(writer.scale) == Double(rate) / Double(scale), "fps \(fps)")
      try writer.finish()
      let bytes = RecordingTestData.read(path)
      #expect(
        Double(RecordingTestData.uint32(bytes, 132)) / Double(RecordingTestData.uint32(bytes, 128))
          == Double(rate) / Double(scale), "fps \(fps)")
    }
  }

  @Test func aMissingFolderIsAnErrorNamingThePath() throws {
    let path = "no-such-folder-\(UUID().uuidString)/clip.avi"
    #expect {
      _ = try AVIWriter(path: path, width: 640, height: 360, fps: 30)
    } throws: { error in
      guard let error = error as? CaptureError else { return false }
      return error.kind == .io && error.source == path && error.message.contains("does not exist")
    }
  }
}
