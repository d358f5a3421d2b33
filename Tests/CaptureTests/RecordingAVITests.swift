import Capture
import Foundation
import TestSupport
import Testing

@Suite struct RecordingAVITests {
  let frames = RecordingTestData.fixtureFrames
  let captureTimes = [1000.0, 1000.0334, 1000.0671, 1000.1002, 1000.1339]

  @Test func aWrittenAVIReadsBackTheSameBytesAndTimes() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = try RecordingTestData.writeAVI(in: folder, times: captureTimes)
    let source = try RecordingSource.open(path: path)
    #expect(source.info.kind == "avi")
    #expect(source.info.width == 640)
    #expect(source.info.height == 360)
    #expect(source.info.fps == 30)
    #expect(source.info.frameCount == 5)
    #expect(source.info.details["timing"] == "sidecar")
    #expect(source.info.details["avi_frames_from"] == "idx1")
    let read = try RecordingTestData.readAll(source)
    #expect(read.map(\.payload) == frames.map { .jpeg($0) })
    #expect(read.map(\.t) == captureTimes)
    #expect(read.map(\.index) == [0, 1, 2, 3, 4])
  }

  @Test func theHeaderFieldsAndIndexAreRight() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = try RecordingTestData.writeAVI(in: folder, fps: 30000.0 / 1001.0, times: captureTimes)
    let bytes = RecordingTestData.read(path)
    let u32 = { RecordingTestData.uint32(bytes, $0) }
    let fourCC = { RecordingTestData.fourCC(bytes, $0) }

    #expect(fourCC(0) == "RIFF")
    #expect(Int(u32(4)) == bytes.count - 8)
    #expect(fourCC(8) == "AVI ")
    #expect(fourCC(12) == "LIST")
    #expect(fourCC(20) == "hdrl")
    // avih
    #expect(fourCC(24) == "avih")
    #expect(u32(28) == 56)
    #expect(u32(32) == 33367)  // dwMicroSecPerFrame
    #expect(u32(32 + 12) & 0x10 == 0x10)  // AVIF_HASINDEX
    #expect(u32(32 + 16) == 5)  // dwTotalFrames
    #expect(u32(32 + 24) == 1)  // dwStreams
    #expect(u32(32 + 32) == 640)
    #expect(u32(32 + 36) == 360)
    // strh
    #expect(fourCC(88) == "LIST")
    #expect(fourCC(96) == "strl")
    #expect(fourCC(100) == "strh")
    #expect(fourCC(108) == "vids")
    #expect(fourCC(112) == "MJPG")
    #expect(u32(108 + 20) == 1001)  // dwScale
    #expect(u32(108 + 24) == 30000)  // dwRate
    #expect(u32(108 + 32) == 5)  // dwLength
    // strf: BITMAPINFOHEADER
    #expect(fourCC(164) == "strf")
    #expect(u32(172) == 40)
    #expect(u32(176) == 640)
    #expect(u32(180) == 360)
    #expect(fourCC(188) == "MJPG")
    // movi: one 00dc chunk per frame, each padded to an even size.
    #expect(fourCC(212) == "LIST")
    #expect(fourCC(220) == "movi")
    let moviEnd = 220 + Int(u32(216))
    var position = 224
    var chunkOffsets: [Int] = []
    for frame in frames {
      #expect(fourCC(position) == "00dc")
      #expect(Int(u32(position + 4)) == frame.count)
      #expect(Array(bytes[(position + 8)..<(position + 8 + frame.count)]) == frame)
      chunkOffsets.append(position)
      position += 8 + frame.count + (frame.count & 1)
      #expect(position % 2 == 0)
    }
    #expect(frames.contains { $0.count % 2 == 1 })  // The padding was exercised.
    #expect(position == moviEnd)
    // idx1: offsets count from the 'movi' list type.
    #expect(fourCC(position) == "idx1")
    #expect(u32(position + 4) == 16 * 5)
    for (entry, frame) in frames.enumerated() {
      let start = position + 8 + 16 * entry
      #expect(fourCC(start) == "00dc")
      #expect(u32(start + 4) == 0x10)  // AVIIF_KEYFRAME
      #expect(Int(u32(start + 8)) == chunkOffsets[entry] - 220)
      #expect(Int(u32(start + 12)) == frame.count)
    }
    #expect(position + 8 + 16 * 5 == bytes.count)
  }

  @Test func theSidecarHoldsTheRealTimesAndTheHeader() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = try RecordingTestData.writeAVI(in: folder, times: captureTimes)
    let text = String(decoding: RecordingTestData.read(path + ".timestamps.jsonl"), as: UTF8.self)
    let lines = text.split(separator: "\n").map(String.init)
    #expect(lines.count == 6)
    #expect(lines[0].hasPrefix("{\"workbench_timestamps\":1,"))
    #expect(lines[0].contains("\"width\":640"))
    #expect(lines[1] == "{\"frame\":0,\"t\":1000}")
    #expect(lines[2] == "{\"frame\":1,\"t\":1000.0334}")
  }

  @Test func withoutASidecarTimesComeFromTheStreamRate() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = try RecordingTestData.writeAVI(in: folder, fps: 30000.0 / 1001.0, times: captureTimes)
    try FileManager.default.removeItem(atPath: path + ".timestamps.jsonl")
    // The container's rate wins over fps, which is only for files without one.
    let source = try RecordingSource.open(path: path, fps: 5)
    #expect(source.info.details["timing"] == "header")
    #expect(source.info.fps == 30000.0 / 1001.0)
    let read = try RecordingTestData.readAll(source)
    #expect(read.map(\.t) == (0..<5).map { Double($0) * 1001 / 30000 })
    #expect(read.map(\.payload) == frames.map { .jpeg($0) })
  }

  @Test func aFileCutAnywhereYieldsTheWholeFramesBeforeTheCut() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let original = RecordingTestData.read(try RecordingTestData.writeAVI(in: folder))
    var chunkStarts: [Int] = []
    var chunkEnds: [Int] = []  // Where each frame's data ends (before any padding).
    var position = 224
    for frame in frames {
      chunkStarts.append(position)
      chunkEnds.append(position + 8 + frame.count)
      position += 8 + frame.count + (frame.count & 1)
    }
    var cuts = Array(stride(from: 0, to: original.count, by: 997))
    for end in chunkEnds { cuts += [end - 1, end, end + 1, end + 4, end + 9] }
    cuts += [11, 12, 100, 211, 212, 223, 224, 225, 231, 232, original.count - 1]
    let path = folder.file("cut.avi")
    for cut in Set(cuts) where cut > 0 && cut < original.count {
      try RecordingTestData.write(Array(original.prefix(cut)), to: path)
      let read: [RecordedFrame]
      do {
        read = try RecordingTestData.readAll(path: path)
      } catch let error as CaptureError {
        // Only a file cut before its frame data may be refused.
        #expect(cut < 224, "cut at \(cut): \(error)")
        #expect(error.kind == .invalidRecording)
        continue
      }
      let whole = chunkEnds.filter { $0 <= cut }.count
      #expect(Array(read.prefix(whole).map(\.payload)) == frames.prefix(whole).map { .jpeg($0) }, "cut at \(cut)")
      // A cut inside a frame's chunk adds that frame, unreadable; nothing else follows.
      let insideNextChunk = whole < frames.count && cut > chunkStarts[whole]
      #expect(read.count == whole + (insideNextChunk ? 1 : 0), "cut at \(cut)")
      if read.count > whole { #expect(read[whole].payload.isUnreadable, "cut at \(cut)") }
    }
  }

  @Test func aBrokenFrameIsUnreadableAndTheIndexFindsTheRest() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    var bytes = RecordingTestData.read(try RecordingTestData.writeAVI(in: folder))
    let secondChunk = 224 + 8 + frames[0].count + (frames[0].count & 1)
    let thirdChunk = secondChunk + 8 + frames[1].count + (frames[1].count & 1)
    // Damage both the chunk header and the start of the JPEG of frame 2.
    for offset in thirdChunk..<(thirdChunk + 16) { bytes[offset] = 0x55 }
    let path = folder.file("damaged.avi")
    try RecordingTestData.write(bytes, to: path)
    let source = try RecordingSource.open(path: path)
    #expect(source.info.details["avi_frames_from"] == "idx1")
    let read = try RecordingTestData.readAll(source)
    #expect(read.count == 5)
    #expect(read[2].payload.isUnreadable)
    for index in [0, 1, 3, 4] { #expect(read[index].payload == .jpeg(frames[index])) }
  }

  @Test func withoutAnIndexADamagedChunkIsSkippedBySearchingForTheNext() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let whole = RecordingTestData.read(try RecordingTestData.writeAVI(in: folder))
    var chunkStarts: [Int] = []
    var position = 224
    for frame in frames {
      chunkStarts.append(position)
      position += 8 + frame.count + (frame.count & 1)
    }
    // Drop idx1, as a recording that was never finished lacks it.
    let withoutIndex = Array(whole.prefix(position))
    let path = folder.file("damaged.avi")

    var garbledID = withoutIndex
    for offset in chunkStarts[2]..<(chunkStarts[2] + 4) { garbledID[offset] = 0xEE }
    try RecordingTestData.write(garbledID, to: path)
    var read = try RecordingTestData.readAll(path: path)
    #expect(read.count == 5)
    #expect(read[2].payload.isUnreadable)
    for index in [0, 1, 3, 4] { #expect(read[index].payload == .jpeg(frames[index])) }

    var hugeSize = withoutIndex
    hugeSize[chunkStarts[1] + 7] = 0x7F  // Frame 1 now claims about 2 GB.
    try RecordingTestData.write(hugeSize, to: path)
    read = try RecordingTestData.readAll(path: path)
    #expect(read.count == 5)
    #expect(read[1].payload.isUnreadable)
    for index in [0, 2, 3, 4] { #expect(read[index].payload == .jpeg(frames[index])) }

    var brokenJPEG = withoutIndex
    brokenJPEG[chunkStarts[3] + 8] = 0x00  // Frame 3's data no longer starts with FFD8.
    try RecordingTestData.write(brokenJPEG, to: path)
    read = try RecordingTestData.readAll(path: path)
    #expect(read.count == 5)
    #expect(read[3].payload.isUnreadable)
    for index in [0, 1, 2, 4] { #expect(read[index].payload == .jpeg(frames[index])) }
  }

  @Test func framesInLaterOpenDMLPartsAndBetweenOtherChunksAreRead() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    var bytes = RecordingTestData.read(try RecordingTestData.writeAVI(in: folder))
    func chunk(_ id: String, _ data: [UInt8]) -> [UInt8] {
      let size = UInt32(data.count)
      let sizeBytes = [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24)]
      return Array(id.utf8) + sizeBytes + data + (data.count % 2 == 1 ? [0] : [])
    }
    // A second RIFF part as OpenDML writers add past 1 GiB, with an audio
    // chunk, padding and a 'rec ' group among the frames; idx1 covers none of it.
    let group = chunk("LIST", Array("rec ".utf8) + chunk("00dc", frames[1]) + chunk("01wb", [1, 2, 3]))
    let movi = chunk("LIST", Array("movi".utf8) + chunk("00dc", frames[0]) + chunk("JUNK", [0, 0]) + group)
    bytes += chunk("RIFF", Array("AVIX".utf8) + movi)
    let path = folder.file("parts.avi")
    try RecordingTestData.write(bytes, to: path)
    let source = try RecordingSource.open(path: path)
    #expect(source.info.details["avi_frames_from"] == "walk")
    let read = try RecordingTestData.readAll(source)
    #expect(read.map(\.payload) == (frames + [frames[0], frames[1]]).map { .jpeg($0) })
  }

  @Test func anAVIWithAnotherCodecGoesToFFmpeg() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    var bytes = RecordingTestData.read(try RecordingTestData.writeAVI(in: folder))
    bytes.replaceSubrange(112..<116, with: Array("H264".utf8))
    bytes.replaceSubrange(188..<192, with: Array("H264".utf8))
    let path = folder.file("h264.avi")
    try RecordingTestData.write(bytes, to: path)
    let source = try RecordingSource.open(path: path)
    defer { source.close() }
    #expect(source.info.kind == "video")
    #expect(source.info.details["codec"] == "h264")
  }

  @Test("a frame let go lends its storage to the frame after next; a frame still held keeps its bytes")
  func framesReuseTheirStorage() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let jpeg = frames[0]
    let path = try RecordingTestData.writeAVI(in: folder, frames: [jpeg, jpeg, jpeg, jpeg, jpeg])
    let source = try RecordingSource.open(path: path)
    defer { source.close() }
    try RecordingTestData.expectFramesReuseTheirStorage(source, frame: jpeg)
  }
}
