import Capture
import Foundation
import TestSupport
import Testing

@Suite struct RecordingSourceTests {
  /// Whether `error` is a CaptureError of `kind` that names `path`, says
  /// `reason` and tells what works.
  private func isError(_ error: any Error, _ kind: CaptureError.Kind, path: String, reason: String) -> Bool {
    guard let error = error as? CaptureError else { return false }
    return error.kind == kind && error.source == path && error.description.contains(path)
      && error.message.contains(reason) && error.help != nil
  }

  @Test func aMissingFileIsUnreadableAndNamed() throws {
    let path = "no-such-recording-\(UUID().uuidString).avi"
    #expect {
      _ = try RecordingSource.open(path: path)
    } throws: { isError($0, .unreadableFile, path: path, reason: "no such file") }
  }

  @Test func anUnknownFormatIsNamedWithWhatWorks() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let text = try folder.write("notes.txt", "just some text\n")
    #expect {
      _ = try RecordingSource.open(path: text)
    } throws: { error in
      isError(error, .invalidRecording, path: text, reason: "unknown recording format")
        && ((error as? CaptureError)?.help ?? "").contains("MP4")
        && ((error as? CaptureError)?.help ?? "").contains("workbench probe")
    }
    let mp4 = folder.file("clip.mp4")
    try RecordingTestData.write([0, 0, 0, 0x20] + Array("ftypisom".utf8) + [UInt8](repeating: 0, count: 20), to: mp4)
    #expect {
      _ = try RecordingSource.open(path: mp4)
    } throws: { isError($0, .invalidRecording, path: mp4, reason: "moov") }
  }

  @Test func aNameThatLiesAboutTheFormatIsAnError() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let avi = try folder.write("fake.avi", "not a RIFF file at all")
    #expect {
      _ = try RecordingSource.open(path: avi)
    } throws: { isError($0, .invalidRecording, path: avi, reason: "unknown recording format") }
    let y4m = try folder.write("fake.y4m", "not a Y4M file")
    #expect {
      _ = try RecordingSource.open(path: y4m)
    } throws: { isError($0, .invalidRecording, path: y4m, reason: "YUV4MPEG2") }
    let mjpeg = try folder.write("fake.mjpeg", "no JPEG in here")
    #expect {
      _ = try RecordingSource.open(path: mjpeg)
    } throws: { isError($0, .invalidRecording, path: mjpeg, reason: "FFD8FF") }
    let wave = folder.file("sound.avi")
    try RecordingTestData.write(Array("RIFF".utf8) + [4, 0, 0, 0] + Array("WAVE".utf8), to: wave)
    #expect {
      _ = try RecordingSource.open(path: wave)
    } throws: { isError($0, .invalidRecording, path: wave, reason: "WAVE") }
  }

  @Test func anEmptyFileIsAnError() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = try folder.write("empty.mjpeg", "")
    #expect {
      _ = try RecordingSource.open(path: path)
    } throws: { isError($0, .invalidRecording, path: path, reason: "empty") }
  }

  @Test(arguments: [0.0, -5, .nan, .infinity])
  func aRateThatIsNotPositiveIsRefused(fps: Double) throws {
    let path = packageRootPath + "/Tests/Fixtures/frames"
    #expect(throws: CaptureError.self) { _ = try RecordingSource.open(path: path, fps: fps) }
  }

  @Test func aMalformedSidecarIsAnErrorNamingItsLine() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("clip.mjpeg")
    try RecordingTestData.write(RecordingTestData.fixtureFrames[0], to: path)
    let sidecar = path + ".timestamps.jsonl"
    let cases: [(String, String)] = [
      ("{\"workbench_timestamps\":1}\n{\"frame\":0,\"t\":1}\n{\"frame\":1 \"t\":2}\n", "line 3"),
      ("{\"frame\":0,\"t\":\"soon\"}\n", "\"t\""),
      ("{\"frame\":-1,\"t\":0}\n", "\"frame\""),
      ("{\"frame\":0,\"t\":1}\n{\"frame\":0,\"t\":2}\n", "listed twice"),
      ("{\"workbench_timestamps\":2}\n", "version"),
      ("{\"frame\":0,\"t\":1}\n{\"workbench_timestamps\":1}\n", "first line"),
    ]
    for (text, reason) in cases {
      try text.write(toFile: sidecar, atomically: true, encoding: .utf8)
      #expect(
        performing: { _ = try RecordingSource.open(path: path) },
        throws: { error in
          isError(error, .invalidRecording, path: path, reason: reason)
            && (error as? CaptureError)?.message.contains(sidecar) == true
        })
    }
  }

  @Test func readingTwiceGivesIdenticalFramesAndTimes() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let frames = RecordingTestData.fixtureFrames
    let avi = try RecordingTestData.writeAVI(in: folder, fps: 29.97, times: [0.1, 0.2, 0.3, 0.4, 0.5])
    try FileManager.default.removeItem(atPath: avi + ".timestamps.jsonl")
    let mjpeg = folder.file("clip.mjpeg")
    try RecordingTestData.write(frames.flatMap { $0 }, to: mjpeg)
    let y4m = folder.file("clip.y4m")
    let pixels = (0..<5).map { RecordingTestData.yuvFrame(width: 16, height: 8, seed: $0) }
    try RecordingTestData.write(RecordingTestData.y4m(header: "W16 H8 F30000:1001", frames: pixels), to: y4m)
    let jpegFolder = try RecordingTestData.fixtureFolder(in: folder)
    for (path, fps) in [(avi, nil), (mjpeg, 29.97), (y4m, nil), (jpegFolder, 7.0)] {
      let first = try RecordingTestData.readAll(path: path, fps: fps)
      let second = try RecordingTestData.readAll(path: path, fps: fps)
      #expect(first.count == 5, "\(path)")
      #expect(first == second, "\(path)")
      #expect(first.map(\.t.bitPattern) == second.map(\.t.bitPattern), "\(path)")
      #expect(first.allSatisfy { !$0.payload.isUnreadable }, "\(path)")
    }
  }

  @Test func aSourceReadsNothingAfterClose() throws {
    let source = try RecordingSource.open(path: packageRootPath + "/Tests/Fixtures/frames")
    #expect(try source.next() != nil)
    source.close()
    source.close()
    #expect(try source.next() == nil)
  }
}
