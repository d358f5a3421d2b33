import Imaging
import Testing

@Suite struct JPEGDecoderTests {
  @Test func headerOfARealFrame() throws {
    let header = try JPEGDecoder().readHeader(try fixtureFrame())
    #expect(header == JPEGHeader(width: 640, height: 360, subsampling: .yuv420, colorspace: .yCbCr))
  }

  @Test(arguments: ["0001.jpg", "0027.jpg"])
  func decodesARealFrameToGray(name: String) throws {
    let buffer = ImageBuffer(format: .rgb8)
    try JPEGDecoder().decode(try fixtureFrame(name), into: buffer, format: .gray8)
    #expect(buffer.width == 640 && buffer.height == 360 && buffer.format == .gray8)
    // An indoor face video: neither black nor blown out, and with detail.
    #expect((40...210).contains(buffer.meanValue))
    #expect(buffer.standardDeviation > 15)
  }

  @Test func decodesARealFrameToRGB() throws {
    let rgb = ImageBuffer(format: .rgb8)
    let gray = ImageBuffer(format: .gray8)
    let decoder = JPEGDecoder()
    let frame = try fixtureFrame()
    try decoder.decode(frame, into: rgb, format: .rgb8)
    try decoder.decode(frame, into: gray, format: .gray8)
    #expect(rgb.width == 640 && rgb.height == 360 && rgb.format == .rgb8)
    #expect(rgb.standardDeviation > 15)
    // The decoder's own gray output is the JPEG's luma; the luma of its RGB
    // output must agree up to rounding.
    let luma = ImageBuffer(format: .gray8)
    try ImageConversion.rgb8ToGray8(rgb, into: luma)
    #expect(abs(luma.meanValue - gray.meanValue) < 1)
    #expect(peakSignalToNoiseRatio(luma, gray) > 40)
  }

  @Test func scaledDecodesHaveTheScaledSizeAndTheSameBrightness() throws {
    let decoder = JPEGDecoder()
    let frame = try fixtureFrame()
    let full = ImageBuffer(format: .gray8)
    try decoder.decode(frame, into: full, format: .gray8)
    let expected: [(JPEGScale, Int, Int)] = [
      (.full, 640, 360), (.half, 320, 180), (.quarter, 160, 90), (.eighth, 80, 45),
    ]
    for (scale, width, height) in expected {
      for format in [PixelFormat.gray8, .rgb8] {
        let scaled = ImageBuffer(format: format)
        try decoder.decode(frame, into: scaled, format: format, scale: scale)
        #expect(scaled.width == width && scaled.height == height, "\(scale) \(format)")
        if format == .gray8 {
          // Scaled IDCTs keep each block's DC term: measured within 0.01.
          #expect(abs(scaled.meanValue - full.meanValue) < 0.5, "\(scale)")
        }
      }
    }
  }

  @Test func scaledSizesRoundUp() {
    #expect(JPEGScale.eighth.scaledSize(width: 641, height: 1) == (81, 1))
    #expect(JPEGScale.half.scaledSize(width: 1, height: 3) == (1, 2))
  }

  @Test func fastDecodingIsCloseToAccurate() throws {
    let decoder = JPEGDecoder()
    let frame = try fixtureFrame()
    let accurate = ImageBuffer(format: .rgb8)
    let fast = ImageBuffer(format: .rgb8)
    try decoder.decode(frame, into: accurate, format: .rgb8)
    try decoder.decode(frame, into: fast, format: .rgb8, fast: true)
    #expect(peakSignalToNoiseRatio(accurate, fast) > 40)  // measured 48 dB
  }

  @Test func decodingIntoTheSameBufferDoesNotReallocate() throws {
    let decoder = JPEGDecoder()
    let buffer = ImageBuffer(format: .rgb8)
    try decoder.decode(try fixtureFrame("0001.jpg"), into: buffer, format: .rgb8)
    let pixels = buffer.pixels
    let capacity = buffer.capacity
    #expect(capacity == 640 * 360 * 3)
    try decoder.decode(try fixtureFrame("0002.jpg"), into: buffer, format: .rgb8)
    try decoder.decode(try fixtureFrame("0003.jpg"), into: buffer, format: .gray8, scale: .half)
    try decoder.decode(try fixtureFrame("0040.jpg"), into: buffer, format: .rgb8, fast: true)
    #expect(buffer.pixels == pixels)
    #expect(buffer.capacity == capacity)
  }

  @Test func refusesImagesOverTheLimitBeforeAllocating() throws {
    let decoder = JPEGDecoder()
    decoder.maximumPixelCount = 640 * 359
    let buffer = ImageBuffer(format: .gray8)
    let error = #expect(throws: ImagingError.self) {
      try decoder.decode(try fixtureFrame(), into: buffer, format: .gray8)
    }
    #expect(error?.kind == .unsupported)
    #expect(buffer.capacity == 1)
  }

  @Test func yuvIsNotADecodeFormat() throws {
    let error = #expect(throws: ImagingError.self) {
      try JPEGDecoder().decode(try fixtureFrame(), into: ImageBuffer(format: .gray8), format: .yuv420p)
    }
    #expect(error?.kind == .unsupported)
  }
}
