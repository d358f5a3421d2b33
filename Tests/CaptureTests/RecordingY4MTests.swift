import Capture
import Foundation
import TestSupport
import Testing

@Suite struct RecordingY4MTests {
  @Test func readsFramesSizesAndTheRateOfTheHeader() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("clip.y4m")
    let pixels = (0..<3).map { RecordingTestData.yuvFrame(width: 8, height: 6, seed: $0) }
    try RecordingTestData.write(RecordingTestData.y4m(header: "W8 H6 F25:1 Ip A1:1 C420jpeg", frames: pixels), to: path)
    let source = try RecordingSource.open(path: path, fps: 99)
    #expect(source.info.kind == "y4m")
    #expect(source.info.width == 8)
    #expect(source.info.height == 6)
    #expect(source.info.fps == 25)
    #expect(source.info.frameCount == 3)
    #expect(source.info.details["timing"] == "header")
    let read = try RecordingTestData.readAll(source)
    #expect(read.map(\.payload) == pixels.map { .image(width: 8, height: 6, pixels: $0) })
    #expect(read.map(\.t) == [0, 0.04, 0.08])
  }

  @Test(arguments: [
    "W7 H5 F30000:1001 C420paldv", "W7 H5 F30000:1001 C420mpeg2 XYSCSS=420MPEG2", "W7 H5 F30000:1001 C420",
    "W7 H5 F30000:1001", "F30000:1001 H5 W7 It A0:0 XCOLORRANGE=LIMITED",
  ])
  func acceptsEvery420Variant(header: String) throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("variant.y4m")
    // Odd sizes: chroma planes are rounded up (4×3 each for 7×5).
    let pixels = (0..<2).map { RecordingTestData.yuvFrame(width: 7, height: 5, seed: $0) }
    #expect(pixels[0].count == 7 * 5 + 2 * 4 * 3)
    try RecordingTestData.write(RecordingTestData.y4m(header: header, frames: pixels), to: path)
    let read = try RecordingTestData.readAll(path: path)
    #expect(read.map(\.payload) == pixels.map { .image(width: 7, height: 5, pixels: $0) })
    #expect(read.map(\.t) == [0, 1001.0 / 30000])
  }

  @Test(arguments: ["C444", "C422", "Cmono", "C420p10", "C411"])
  func refusesOtherChromaFormatsNamingThem(chroma: String) throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("other.y4m")
    try RecordingTestData.write(Array("YUV4MPEG2 W8 H6 F25:1 \(chroma)\nFRAME\n".utf8), to: path)
    #expect {
      _ = try RecordingSource.open(path: path)
    } throws: { error in
      guard let error = error as? CaptureError else { return false }
      return error.kind == .invalidRecording && error.source == path && error.message.contains(chroma)
        && error.message.contains("4:2:0") && (error.help ?? "").contains("yuv420p")
    }
  }

  @Test func anUnknownRateNeedsFpsOrASidecarRatherThanAGuessOfThirty() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("norate.y4m")
    let pixels = (0..<2).map { RecordingTestData.yuvFrame(width: 4, height: 4, seed: $0) }
    try RecordingTestData.write(RecordingTestData.y4m(header: "W4 H4 F0:0", frames: pixels), to: path)
    #expect {
      try RecordingTestData.readAll(path: path)
    } throws: { error in
      guard let error = error as? CaptureError else { return false }
      return error.message.contains("F0:0 (unknown)") && (error.help ?? "").contains("--fps")
    }
    #expect(try RecordingTestData.readAll(path: path, fps: 4).map(\.t) == [0, 0.25])
  }

  @Test func aSmallFileThatDeclaresAHugeFrameIsRefusedBeforeItIsAllocated() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("huge.y4m")
    // 1 KB declaring 16384 × 16384 (about 400 MB a frame).
    try RecordingTestData.write(
      Array("YUV4MPEG2 W16384 H16384 F30:1\nFRAME\n".utf8) + [UInt8](repeating: 0, count: 1000), to: path)
    #expect {
      try RecordingTestData.readAll(path: path)
    } throws: { error in
      guard let error = error as? CaptureError else { return false }
      return error.message.contains("truncated") && error.message.contains("16384×16384")
        && error.message.contains("not one whole frame")
    }
  }

  @Test(arguments: ["W0 H4", "W16385 H4", "Wabc H4", "H4"])
  func aBadWidthStatesTheLimit(header: String) throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("bad.y4m")
    try RecordingTestData.write(Array("YUV4MPEG2 \(header) F30:1\n".utf8), to: path)
    #expect {
      try RecordingTestData.readAll(path: path)
    } throws: { error in
      guard let error = error as? CaptureError else { return false }
      return header == "H4"
        ? error.message.contains("no width (W)")
        : error.message.contains("is not a whole number from 1 to 16384")
    }
  }

  @Test func aShortLastFrameIsUnreadable() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("short.y4m")
    let pixels = (0..<3).map { RecordingTestData.yuvFrame(width: 8, height: 6, seed: $0) }
    var frames = pixels
    frames[2] = Array(pixels[2].prefix(40))
    try RecordingTestData.write(RecordingTestData.y4m(header: "W8 H6 F25:1", frames: frames), to: path)
    let read = try RecordingTestData.readAll(path: path)
    #expect(read.count == 3)
    #expect(read[0].payload == .image(width: 8, height: 6, pixels: pixels[0]))
    #expect(read[1].payload == .image(width: 8, height: 6, pixels: pixels[1]))
    #expect(read[2].payload.isUnreadable)

    // Cut inside the FRAME line itself.
    let cut = RecordingTestData.y4m(header: "W8 H6 F25:1", frames: Array(pixels.prefix(2))) + Array("FRA".utf8)
    try RecordingTestData.write(cut, to: path)
    let readCut = try RecordingTestData.readAll(path: path)
    #expect(readCut.count == 3)
    #expect(readCut[2].payload.isUnreadable)
  }

  @Test func aMissingFrameLineIsUnreadableAndReadingResumesAtTheNext() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("damaged.y4m")
    let pixels = (0..<4).map { RecordingTestData.yuvFrame(width: 8, height: 6, seed: $0) }
    var bytes = RecordingTestData.y4m(header: "W8 H6 F25:1", frames: pixels)
    let secondFrame = Array("YUV4MPEG2 W8 H6 F25:1\n".utf8).count + 6 + pixels[0].count
    bytes.replaceSubrange(secondFrame..<(secondFrame + 5), with: Array("XXXXX".utf8))
    try RecordingTestData.write(bytes, to: path)
    let read = try RecordingTestData.readAll(path: path)
    #expect(read.count == 4)
    #expect(read[0].payload == .image(width: 8, height: 6, pixels: pixels[0]))
    #expect(read[1].payload.isUnreadable)
    #expect(read[2].payload == .image(width: 8, height: 6, pixels: pixels[2]))
    #expect(read[3].payload == .image(width: 8, height: 6, pixels: pixels[3]))
    #expect(read.map(\.t) == [0, 0.04, 0.08, 0.12])
  }

  @Test func aHeaderWithoutASizeIsAnError() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("nosize.y4m")
    try RecordingTestData.write(Array("YUV4MPEG2 H6 F25:1\nFRAME\n".utf8), to: path)
    #expect {
      _ = try RecordingSource.open(path: path)
    } throws: { error in
      guard let error = error as? CaptureError else { return false }
      return error.kind == .invalidRecording && error.message.contains("width")
    }
  }
}
