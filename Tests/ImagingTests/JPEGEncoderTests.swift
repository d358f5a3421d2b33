import Imaging
import Testing

@Suite struct JPEGEncoderTests {
  let decoder: JPEGDecoder
  let encoder: JPEGEncoder
  let original = ImageBuffer(format: .rgb8)

  init() throws {
    decoder = JPEGDecoder()
    encoder = JPEGEncoder()
    try decoder.decode(try fixtureFrame(), into: original, format: .rgb8)
  }

  /// Quality 90 measured 51.2 dB (RGB, 4:2:0) and 53.8 dB (gray) on this
  /// frame: high, because the frame is itself a decoded JPEG of smooth video
  /// whose detail the re-encoding keeps. 45/48 dB leave room for other
  /// libjpeg-turbo builds and still fail on any visible loss.
  @Test func rgbRoundTripKeepsTheImage() throws {
    let jpeg = try encoder.encode(original, quality: 90)
    #expect(jpeg.starts(with: [0xFF, 0xD8]))
    #expect(
      try decoder.readHeader(jpeg) == JPEGHeader(width: 640, height: 360, subsampling: .yuv420, colorspace: .yCbCr))
    let decoded = ImageBuffer(format: .rgb8)
    try decoder.decode(jpeg, into: decoded, format: .rgb8)
    let psnr = peakSignalToNoiseRatio(original, decoded)
    #expect(psnr > 45, "PSNR \(psnr) dB")
  }

  @Test func grayRoundTripKeepsTheImage() throws {
    let gray = ImageBuffer(format: .gray8)
    try ImageConversion.rgb8ToGray8(original, into: gray)
    let jpeg = try encoder.encode(gray, quality: 90)
    #expect(try decoder.readHeader(jpeg).subsampling == .gray)
    let decoded = ImageBuffer(format: .gray8)
    try decoder.decode(jpeg, into: decoded, format: .gray8)
    let psnr = peakSignalToNoiseRatio(gray, decoded)
    #expect(psnr > 48, "PSNR \(psnr) dB")
  }

  @Test func higherQualityIsCloserAndLarger() throws {
    let decoded = ImageBuffer(format: .rgb8)
    var previous = (size: 0, psnr: 0.0)
    for quality in [30, 60, 90, 100] {
      let jpeg = try encoder.encode(original, quality: quality, subsampling: .yuv444)
      try decoder.decode(jpeg, into: decoded, format: .rgb8)
      let psnr = peakSignalToNoiseRatio(original, decoded)
      #expect(jpeg.count > previous.size && psnr > previous.psnr, "quality \(quality)")
      previous = (jpeg.count, psnr)
    }
  }

  @Test(arguments: [JPEGSubsampling.yuv444, .yuv422, .yuv420, .gray])
  func rgbSubsamplingIsHonoured(subsampling: JPEGSubsampling) throws {
    let jpeg = try encoder.encode(original, subsampling: subsampling)
    #expect(try decoder.readHeader(jpeg).subsampling == subsampling)
  }

  /// A flat mid-grey frame with a brighter left half and a reddish top:
  /// checks the plane order (Y, then U, then V) and odd sizes.
  @Test(arguments: [(64, 48), (33, 17)])
  func yuv420pEncodesLikeTheSameImageInRGB(width: Int, height: Int) throws {
    let yuv = ImageBuffer(width: width, height: height, format: .yuv420p)
    let chromaWidth = (width + 1) / 2
    let chromaHeight = (height + 1) / 2
    let lumaCount = width * height
    for y in 0..<height {
      for x in 0..<width { yuv.pixels[y * width + x] = x < width / 2 ? 160 : 90 }
    }
    for y in 0..<chromaHeight {
      for x in 0..<chromaWidth {
        yuv.pixels[lumaCount + y * chromaWidth + x] = 128
        yuv.pixels[lumaCount + chromaWidth * chromaHeight + y * chromaWidth + x] = y < chromaHeight / 2 ? 170 : 128
      }
    }
    let expected = ImageBuffer(format: .rgb8)
    try ImageConversion.yuv420pToRGB8(yuv, into: expected)

    let jpeg = try encoder.encode(yuv, quality: 95)
    #expect(
      try decoder.readHeader(jpeg) == JPEGHeader(width: width, height: height, subsampling: .yuv420, colorspace: .yCbCr)
    )
    let decoded = ImageBuffer(format: .rgb8)
    try decoder.decode(jpeg, into: decoded, format: .rgb8)
    #expect(peakSignalToNoiseRatio(expected, decoded) > 28)
    let topLeftRed = Int(decoded.pixels[0])
    let bottomRightRed = Int(decoded.pixels[decoded.byteCount - 3])
    #expect(topLeftRed > 200 && bottomRightRed < 110, "\(topLeftRed) \(bottomRightRed)")
  }

  @Test func encodingIntoACallerArrayReusesItsStorage() throws {
    var jpeg: [UInt8] = []
    try encoder.encode(original, into: &jpeg)
    let first = jpeg.map { $0 }  // its own storage, so `jpeg` stays uniquely referenced
    let capacity = jpeg.capacity
    let address = jpeg.withUnsafeBufferPointer { $0.baseAddress }
    let other = ImageBuffer(format: .rgb8)
    try decoder.decode(try fixtureFrame("0027.jpg"), into: other, format: .rgb8)
    try encoder.encode(other, into: &jpeg)
    #expect(jpeg != first)
    try encoder.encode(original, into: &jpeg)
    #expect(jpeg == first)
    #expect(jpeg.capacity == capacity)
    #expect(jpeg.withUnsafeBufferPointer { $0.baseAddress } == address)
    #expect(try encoder.encode(original) == first)
  }

  @Test func badArgumentsAreRefused() throws {
    for quality in [0, 101, -5] {
      let error = #expect(throws: ImagingError.self) { try encoder.encode(original, quality: quality) }
      #expect(error?.kind == .invalidArgument)
    }
    let error = #expect(throws: ImagingError.self) { try encoder.encode(ImageBuffer(format: .rgb8)) }
    #expect(error?.kind == .invalidArgument)
    // The encoder is still usable.
    #expect(try encoder.encode(original).count > 1000)
  }
}
