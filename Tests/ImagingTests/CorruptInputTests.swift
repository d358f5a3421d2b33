import Imaging
import Testing

/// Broken frames must come back as an `ImagingError`, never a crash, and
/// must leave the decoder usable for the next frame.
@Suite struct CorruptInputTests {
  let decoder: JPEGDecoder
  let frame: [UInt8]
  let buffer = ImageBuffer(format: .gray8)

  init() throws {
    decoder = JPEGDecoder()
    frame = try fixtureFrame()
  }

  /// Decodes `bytes` expecting an error, then checks the decoder still decodes a good frame.
  func decodeError(_ bytes: [UInt8], format: PixelFormat = .rgb8) throws -> ImagingError? {
    let error = #expect(throws: ImagingError.self) { try decoder.decode(bytes, into: buffer, format: format) }
    try decoder.decode(frame, into: buffer, format: .gray8)
    #expect(buffer.width == 640 && buffer.height == 360)
    return error
  }

  /// The offset of the baseline frame header (SOF0) marker.
  var frameHeaderOffset: Int {
    (0..<frame.count - 1).first { frame[$0] == 0xFF && frame[$0 + 1] == 0xC0 }!
  }

  @Test func emptyInputIsTruncated() throws {
    #expect(try decodeError([])?.kind == .truncated)
    let error = #expect(throws: ImagingError.self) { try decoder.readHeader([]) }
    #expect(error?.kind == .truncated)
  }

  /// Cuts inside the quantization (40) and Huffman (120) tables used to
  /// leave TurboJPEG's handle unable to read even good frames.
  @Test(arguments: [2, 40, 100, 120, 600])
  func dataCutBeforeTheImageIsTruncated(keeping count: Int) throws {
    let error = try decodeError(Array(frame.prefix(count)))
    #expect(error?.kind == .truncated)
  }

  @Test func aFrameCutInHalfIsTruncated() throws {
    let error = try decodeError(Array(frame.prefix(frame.count / 2)))
    #expect(error?.kind == .truncated)
    #expect(error?.message.contains("ends early") == true)
    #expect(error?.message.contains("Premature end of JPEG file") == true)
  }

  /// Without the end-of-image marker libjpeg would only warn, after
  /// filling the missing rows with grey.
  @Test func everyCutIsTruncated() throws {
    for count in stride(from: 2, to: frame.count, by: 97) + [frame.count - 1] {
      for format in [PixelFormat.gray8, .rgb8] {
        let error = #expect(throws: ImagingError.self, "cut at \(count)") {
          try decoder.decode(Array(frame.prefix(count)), into: buffer, format: format)
        }
        #expect(error?.kind == .truncated, "cut at \(count): \(error?.message ?? "")")
      }
    }
  }

  @Test(arguments: [1, 7, 1234])
  func randomBytesAreCorrupt(seed: UInt64) throws {
    var random = SeededBytes(seed: seed)
    let error = try decodeError(random.bytes(16_000))
    #expect(error?.kind == .corrupt)
    #expect(error?.message.contains("Not a JPEG file") == true)
  }

  @Test(arguments: [3, 11, 99])
  func randomBytesAfterAStartMarkerAreRefused(seed: UInt64) throws {
    var random = SeededBytes(seed: seed)
    let error = try decodeError([0xFF, 0xD8] + random.bytes(16_000))
    #expect(error?.kind == .corrupt || error?.kind == .truncated)
  }

  @Test(arguments: [UInt8(0x00), 0xFF, 0x5A])
  func aCorruptedMiddleIsCorrupt(filler: UInt8) throws {
    var damaged = frame
    for index in damaged.count / 2..<damaged.count / 2 + 200 { damaged[index] = filler }
    for format in [PixelFormat.gray8, .rgb8] {
      let error = try decodeError(damaged, format: format)
      #expect(error?.kind == .corrupt, "\(error?.message ?? "")")
      #expect(error?.message.contains("damaged") == true)
    }
  }

  @Test func anotherFileTypeIsCorrupt() throws {
    let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 64)
    #expect(try decodeError(png)?.kind == .corrupt)
  }

  @Test func twelveBitPrecisionIsUnsupported() throws {
    var twelveBit = frame
    twelveBit[frameHeaderOffset + 4] = 12
    #expect(try decodeError(twelveBit)?.kind == .unsupported)
  }

  /// 60000×60000 RGB would be 10 GB.
  @Test func aHeaderClaimingAHugeImageIsRefused() throws {
    var huge = frame
    for offset in [5, 7] { huge[frameHeaderOffset + offset] = 0xEA }
    for offset in [6, 8] { huge[frameHeaderOffset + offset] = 0x60 }
    let header = try decoder.readHeader(huge)
    #expect(header.width == 60_000 && header.height == 60_000)
    let error = try decodeError(huge)
    #expect(error?.kind == .unsupported)
    #expect(buffer.capacity < 1_000_000)
  }

  @Test func aHeaderBeyondJPEGsLimitIsUnsupported() throws {
    var huge = frame
    for offset in [5, 6, 7, 8] { huge[frameHeaderOffset + offset] = 0xFF }
    #expect(try decodeError(huge)?.kind == .unsupported)
  }

  @Test func aZeroSizedFrameHeaderIsRefused() throws {
    var empty = frame
    for offset in [5, 6] { empty[frameHeaderOffset + offset] = 0 }
    let error = try decodeError(empty)
    #expect(error?.kind == .corrupt)
  }

  /// Damage anywhere may decode (entropy data has no checksum) or fail,
  /// but must never crash or return an error of the wrong family.
  @Test func damageAnywhereNeverCrashes() throws {
    var failures = 0
    for position in stride(from: 0, to: frame.count, by: 53) {
      var damaged = frame
      damaged[position] ^= 0xA5
      do {
        try decoder.decode(damaged, into: buffer, format: position % 2 == 0 ? .rgb8 : .gray8, fast: position % 3 == 0)
      } catch {
        failures += 1
        #expect([.corrupt, .truncated, .unsupported].contains(error.kind), "\(position): \(error.message)")
      }
    }
    #expect(failures > 0)
    try decoder.decode(frame, into: buffer, format: .rgb8)
  }
}

extension CorruptInputTests {
  /// Some cameras pad MJPEG frames with zeros after the end marker.
  @Test func zeroPaddingAfterTheEndIsNotTruncation() throws {
    try decoder.decode(frame + [UInt8](repeating: 0, count: 300), into: buffer, format: .rgb8)
    #expect(buffer.width == 640 && buffer.height == 360)
    var damaged = frame
    for index in damaged.count / 2..<damaged.count / 2 + 200 { damaged[index] = 0x5A }
    #expect(try decodeError(damaged + [0, 0, 0])?.kind == .corrupt)
  }
}
