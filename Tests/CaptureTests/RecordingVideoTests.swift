import Foundation
import Imaging
import TestSupport
import Testing

@testable import Capture

/// Video files read through FFmpeg, on clips the ffmpeg command makes.
@Suite(.enabled(if: VideoClips.available || Browser.required, Comment(rawValue: VideoClips.skipReason)))
struct RecordingVideoTests {
  struct Read {
    var times: [Double] = []
    var lumas: [[UInt8]] = []
    var unreadable: [String] = []
    var indexes: [Int64] = []
  }

  private func readAll(_ path: String, keepLuma: Bool = false) throws -> (SourceInfo, Read) {
    let source = try RecordingSource.open(path: path)
    defer { source.close() }
    var read = Read()
    while let frame = try source.next() {
      read.indexes.append(frame.index)
      read.times.append(frame.t)
      switch frame.payload {
      case .image(let image):
        #expect(image.format == .yuv420p)
        #expect(image.width == source.info.width && image.height == source.info.height)
        if keepLuma {
          read.lumas.append(Array(UnsafeBufferPointer(start: image.pixels, count: image.width * image.height)))
        }
      case .unreadable(let reason): read.unreadable.append(reason)
      case .jpeg: #expect(source.info.kind != "video", "FFmpeg's reader gives pixels, not JPEG bytes")
      }
    }
    return (source.info, read)
  }

  @Test func anH264MP4GivesEveryFrameAtItsPresentationTime() throws {
    let path = try VideoClips.path(.h264)
    let (info, read) = try readAll(path)
    #expect(info.kind == "video")
    #expect(info.width == 320 && info.height == 240)
    #expect(info.details["codec"] == "h264")
    #expect(info.details["timing"] == "container")
    #expect(info.fps == 30)
    let expected = try VideoClips.frameTimes(path)
    #expect(expected.count == 60)
    #expect(read.times.count == expected.count)
    for (time, reference) in zip(read.times, expected) { #expect(abs(time - reference) < 1e-6) }
    #expect(read.indexes == (0..<Int64(expected.count)).map { $0 })
    #expect(read.unreadable.isEmpty)
  }

  @Test func aVariableRateHEVCMovKeepsItsRealTimes() throws {
    let path = try VideoClips.path(.variableRateHEVC)
    let (info, read) = try readAll(path)
    #expect(info.details["codec"] == "hevc")
    let expected = try VideoClips.frameTimes(path)
    #expect(read.times.count == 60 && expected.count == 60)
    for (time, reference) in zip(read.times, expected) { #expect(abs(time - reference) < 1e-6) }
    // Not one rate for all: intervals differ by several milliseconds.
    let intervals = zip(read.times.dropFirst(), read.times).map { $0 - $1 }
    #expect((intervals.max() ?? 0) - (intervals.min() ?? 0) > 0.005)
    #expect(abs((read.times.last ?? 0) - 60.0 / 30) > 0.1)
  }

  @Test func theLumaIsWhatFFmpegItselfDecodesInFullRange() throws {
    let path = try VideoClips.path(.h264)
    let (_, read) = try readAll(path, keepLuma: true)
    let reference = try VideoClips.lumaFrames(path, width: 320, height: 240)
    #expect(read.lumas.count == reference.count)
    for (ours, theirs) in zip(read.lumas, reference) {
      let largest = zip(ours, theirs).map { abs(Int($0) - Int($1)) }.max() ?? 0
      #expect(largest <= 2)
    }
    // The file is limited range (16-235): its black comes out near 0.
    #expect(try VideoClips.streamFields(path)["streams_stream_0_color_range"] != "pc")
    #expect((read.lumas.first?.min() ?? 255) < 4)
  }

  @Test func aPortraitVideoComesOutUpright() throws {
    let path = try VideoClips.path(.rotated)
    let fields = try VideoClips.streamFields(path)
    // What a phone writes for a portrait video.
    #expect(fields["streams_stream_0_side_data_list_side_data_0_rotation"] == "-90")
    let (info, read) = try readAll(path, keepLuma: true)
    #expect(info.width == 240 && info.height == 320)
    #expect(info.details["rotation"] == "90")
    #expect(info.details["stored_size"] == "320x240")
    // FFmpeg's own player turns it the same way.
    let reference = try VideoClips.lumaFrames(path, width: 240, height: 320)
    #expect(read.lumas.count == reference.count && !reference.isEmpty)
    for (ours, theirs) in zip(read.lumas, reference) {
      let largest = zip(ours, theirs).map { abs(Int($0) - Int($1)) }.max() ?? 0
      #expect(largest <= 2)
    }
  }

  /// A display matrix that mirrors the picture (a front camera's video) is
  /// applied after its turn, as ffmpeg 6's autorotation applies it.
  @Test func aMirroredVideoComesOutMirrored() throws {
    let (_, plain) = try readAll(try VideoClips.path(.h264), keepLuma: true)
    let (mirroredInfo, mirrored) = try readAll(try VideoClips.path(.mirrored), keepLuma: true)
    #expect(mirroredInfo.width == 320 && mirroredInfo.height == 240 && mirroredInfo.details["mirrored"] == "true")
    let (transposedInfo, transposed) = try readAll(try VideoClips.path(.transposed), keepLuma: true)
    #expect(transposedInfo.width == 240 && transposedInfo.height == 320)
    #expect(plain.lumas.count == 60 && mirrored.lumas.count == 60 && transposed.lumas.count == 60)
    for (index, luma) in plain.lumas.enumerated() {
      var flipped = [UInt8](repeating: 0, count: luma.count)
      var turned = [UInt8](repeating: 0, count: luma.count)
      for y in 0..<240 {
        for x in 0..<320 {
          flipped[y * 320 + (319 - x)] = luma[y * 320 + x]
          turned[x * 240 + y] = luma[y * 320 + x]
        }
      }
      #expect(mirrored.lumas[index] == flipped, "frame \(index), mirrored")
      #expect(transposed.lumas[index] == turned, "frame \(index), transposed")
    }
    let probe = RecordingProbe.probe(path: try VideoClips.path(.mirrored))
    #expect(probe.text.contains("320×240 stored, mirrored left to right to 320×240"), "\(probe.text)")
  }

  /// A run that reads frames at half size gets the half made as the frame
  /// was copied out of the decoder, and it converts to the very bytes the
  /// converter's own halving of the full frame gives; a turned or mirrored
  /// frame comes without one (the converter halves it).
  @Test(arguments: [VideoClips.Clip.h264, .rotated, .mirrored])
  func aFrameComesWithItsHalfSizeCopyWhenTheRunReadsOne(clip: VideoClips.Clip) throws {
    let source = try RecordingSource.open(path: try VideoClips.path(clip))
    defer { source.close() }
    source.preferHalfSize(true)
    let converter = VideoFrameConverter()
    let (gray, color) = (ImageBuffer(format: .gray8), ImageBuffer(format: .rgb8))
    let (ownGray, ownColor) = (ImageBuffer(format: .gray8), ImageBuffer(format: .rgb8))
    var withHalf: [Int64] = []
    var frames: Int64 = 0
    while let frame = try source.next() {
      guard case .image(let image) = frame.payload else { continue }
      frames += 1
      guard let half = image.halfSize else { continue }
      withHalf.append(frame.index)
      #expect(half.width == image.width / 2 && half.height == image.height / 2 && half.format == .yuv420p)
      try converter.convert(image, width: half.width, height: half.height, color: color, gray: gray)
      // A copy carries no half: the converter halves the full frame itself.
      try converter.convert(image.copy(), width: half.width, height: half.height, color: ownColor, gray: ownGray)
      #expect(Array(gray.bytes) == Array(ownGray.bytes), "frame \(frame.index): luma")
      #expect(Array(color.bytes) == Array(ownColor.bytes), "frame \(frame.index): colour")
    }
    #expect(frames == 60)
    if clip == .h264 {
      // The frames decoded ahead before the run said what it reads (the ring's four) may come without.
      #expect(withHalf == Array(Int64(withHalf.first ?? -1)..<60) && withHalf.count >= 56, "\(withHalf)")
    } else {
      #expect(withHalf.isEmpty)
    }
  }

  @Test func aCopyOrANewShapeDropsTheHalfSizeCopy() throws {
    let source = try RecordingSource.open(path: try VideoClips.path(.h264))
    defer { source.close() }
    source.preferHalfSize(true)
    var image: ImageBuffer?
    while let frame = try source.next() {
      if case .image(let picture) = frame.payload, picture.halfSize != nil {
        image = picture
        break
      }
    }
    let kept = try #require(image)
    #expect(kept.copy().halfSize == nil)
    kept.dropHalfSize()
    #expect(kept.halfSize == nil)
    kept.keepHalfSize()
    #expect(kept.halfSize != nil)
    kept.reshape(width: kept.width, height: kept.height, format: .yuv420p)
    #expect(kept.halfSize == nil)
  }

  @Test func vp9InWebMIsRead() throws {
    let (info, read) = try readAll(try VideoClips.path(.vp9))
    #expect(info.details["codec"] == "vp9")
    #expect(read.times.count == 60)
    #expect(read.unreadable.isEmpty)
  }

  @Test func anAVIOfMotionJPEGStaysWithTheBuiltInReader() throws {
    let (info, read) = try readAll(try VideoClips.path(.motionJPEGAVI))
    #expect(info.kind == "avi")
    #expect(read.times.count == 60)
  }

  @Test func anMP4CutBeforeItsIndexSaysSo() throws {
    let path = try VideoClips.path(.cutIndexAtEnd)
    #expect {
      _ = try RecordingSource.open(path: path)
    } throws: { error in
      guard let error = error as? CaptureError else { return false }
      return error.kind == .invalidRecording && error.source == path && error.message.contains("moov")
        && error.message.contains("cut short") && error.help != nil
    }
  }

  @Test func anMP4CutAfterItsIndexGivesTheFramesThatAreThere() throws {
    let (_, read) = try readAll(try VideoClips.path(.cutIndexAtFront))
    #expect(read.times.count > 10)
    #expect(read.times.count - read.unreadable.count < 60)
  }

  @Test func aFileWithoutVideoIsRefusedNamingItsAudio() throws {
    let path = try VideoClips.path(.audioOnly)
    #expect {
      _ = try RecordingSource.open(path: path)
    } throws: { error in
      guard let error = error as? CaptureError else { return false }
      return error.kind == .invalidRecording && error.source == path && error.message.contains("no video stream")
        && error.message.contains("1 audio stream") && (error.help ?? "").contains("probe")
    }
  }

  @Test func aCodecFFmpegDoesNotKnowIsRefusedAndDescribed() throws {
    let path = try VideoClips.path(.unknownCodec)
    #expect {
      _ = try RecordingSource.open(path: path)
    } throws: { error in
      guard let error = error as? CaptureError else { return false }
      return error.kind == .unsupportedFormat && error.source == path && error.message.contains("not one FFmpeg knows")
        && (error.help ?? "").contains("probe")
    }
    let probe = RecordingProbe.probe(path: path)
    #expect(!probe.readable)
    #expect(probe.video?.codec == "unknown" && probe.video?.decodable == false)
    #expect(probe.text.contains("no decoder in this build"))
  }

  @Test func aDamagedFrameIsSkippedAndCountedAndReadingGoesOn() throws {
    let (info, read) = try readAll(try VideoClips.path(.corruptFrame))
    #expect(info.details["codec"] == "mjpeg")
    #expect(!read.unreadable.isEmpty)
    #expect(read.unreadable.count < 5)
    // Frames after the damage are read: the last frame is the file's last.
    #expect(abs((read.times.last ?? 0) - 59.0 / 30) < 0.01)
    #expect(zip(read.times.dropFirst(), read.times).allSatisfy { $0 > $1 })
  }

  @Test func moreDamagedFramesInARowThanTheReaderDecodesAheadAreAllSkipped() throws {
    // The decode thread waited for room that taking damaged frames made
    // without saying so (found by the video fuzz target): reading hung once
    // the queue had filled with damaged frames before the loop took one.
    let source = try RecordingSource.open(path: try VideoClips.path(.damagedRun))
    defer { source.close() }
    // That state first: the queue full of the file's first damaged frames.
    let video = try #require(source as? VideoFileSource)
    #expect(video.waitUntilDecodedAhead())
    var unreadable = 0
    var frames = 0
    while let frame = try source.next() {
      frames += 1
      if case .unreadable = frame.payload { unreadable += 1 }
    }
    #expect(unreadable == 6)
    #expect(frames == 60)
  }

  @Test func aTextFileIsNotTakenForAVideo() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    // FFmpeg alone would read a .txt file as ANSI art.
    let text = try folder.write("notes.txt", "just some text\n")
    #expect {
      _ = try RecordingSource.open(path: text)
    } throws: { error in
      guard let error = error as? CaptureError else { return false }
      return error.kind == .invalidRecording && error.message.contains("unknown recording format")
    }
  }

  @Test func probeMeasuresTheRateFromEveryFrame() throws {
    let constant = RecordingProbe.probe(path: try VideoClips.path(.h264))
    #expect(constant.readable)
    #expect(constant.reader == "ffmpeg")
    #expect(constant.frames == 60)
    #expect(constant.rate?.isConstant == true)
    #expect(abs((constant.rate?.measuredRate ?? 0) - 30) < 0.01)
    #expect(abs((constant.duration ?? 0) - 2) < 0.001)
    let variable = RecordingProbe.probe(path: try VideoClips.path(.variableRateHEVC))
    #expect(variable.readable)
    #expect(variable.rate?.isConstant == false)
    #expect((variable.rate?.longestInterval ?? 0) - (variable.rate?.shortestInterval ?? 0) > 0.005)
    #expect(variable.text.contains("variable"))
    let rotated = RecordingProbe.probe(path: try VideoClips.path(.rotated))
    #expect(rotated.video?.rotation == 90)
    #expect(rotated.text.contains("320×240 stored, turned 90° clockwise to 240×320"))
  }

  @Test func probeFindsDamagedFramesWhenItDecodesThemAll() throws {
    let path = try VideoClips.path(.corruptFrame)
    let quick = RecordingProbe.probe(path: path)
    #expect(quick.readable && quick.frames == 60 && quick.damaged == 0)
    let decoded = RecordingProbe.probe(path: path, decodeEveryFrame: true)
    #expect(decoded.readable)
    #expect(decoded.damaged >= 1 && decoded.damaged < 5)
    #expect(decoded.text.contains("damaged"))
  }

  @Test func probeDescribesWhatItCannotRead() throws {
    let audio = RecordingProbe.probe(path: try VideoClips.path(.audioOnly))
    #expect(!audio.readable)
    #expect(audio.video?.audioStreams == 1)
    #expect(audio.problem?.message.contains("no video stream") == true)
    #expect(audio.jsonText.contains("\"readable\":false"))
    let cut = RecordingProbe.probe(path: try VideoClips.path(.cutIndexAtEnd))
    #expect(!cut.readable)
    #expect(cut.text.contains("moov"))
  }
}

/// The H.264 writer: every frame accounted for, kept or dropped.
@Suite(.enabled(if: VideoClips.available || Browser.required, Comment(rawValue: VideoClips.skipReason)))
struct VideoFileWriterTests {
  private func frames(_ count: Int) -> [ImageBuffer] {
    (0..<count).map { index in
      let image = ImageBuffer(width: 640, height: 480, format: .yuv420p)
      for offset in 0..<image.byteCount { image.pixels[offset] = UInt8(truncatingIfNeeded: offset &* 7 &+ index &* 13) }
      return image
    }
  }

  @Test(arguments: [false, true])
  func everyFrameIsWrittenOrCountedAsDropped(dropsWhenBehind: Bool) throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("out.mp4")
    let writer = try VideoFileWriter(
      path: path, width: 640, height: 480, fps: 30, dropsWhenBehind: dropsWhenBehind)
    let images = frames(4)
    for index in 0..<120 { try writer.append(image: images[index % 4], t: Double(index) / 30) }
    try writer.finish()
    #expect(writer.framesWritten + writer.framesDropped == 120)
    if !dropsWhenBehind { #expect(writer.framesDropped == 0) }
    #expect(try VideoClips.frameTimes(path).count == writer.framesWritten)
    #expect(folder.listing == ["out.mp4", "out.mp4.timestamps.jsonl"])
    // Finishing again changes nothing.
    try writer.finish()
    #expect(folder.listing == ["out.mp4", "out.mp4.timestamps.jsonl"])
  }

  @Test func aWriterWithoutFramesLeavesNothing() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let writer = try VideoFileWriter(path: folder.file("empty.mp4"), width: 64, height: 48, fps: 30)
    try writer.finish()
    #expect(folder.listing.isEmpty)
  }

  @Test func anOddSizeLeavesOutTheLastRowAndColumn() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("odd.mkv")
    let writer = try VideoFileWriter(path: path, width: 65, height: 49, fps: 30, dropsWhenBehind: false)
    let image = ImageBuffer(width: 65, height: 49, format: .yuv420p)
    for index in 0..<5 { try writer.append(image: image, t: Double(index) / 30) }
    try writer.finish()
    let fields = try VideoClips.streamFields(path)
    #expect(fields["streams_stream_0_width"] == "64" && fields["streams_stream_0_height"] == "48", "\(fields)")
    #expect(try VideoClips.frameTimes(path).count == 5)
  }
}
