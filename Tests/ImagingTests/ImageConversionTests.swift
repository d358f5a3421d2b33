import Imaging
import Testing

@Suite struct ColourConversionTests {
  /// Primaries and a mixed colour against 0.299 R + 0.587 G + 0.114 B, rounded.
  @Test func rgbToGrayUsesBT601Luma() throws {
    let rgb = image(
      .rgb8, width: 3, height: 2,
      [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255, 10, 20, 30, 0, 0, 0])
    let gray = ImageBuffer(format: .gray8)
    try ImageConversion.rgb8ToGray8(rgb, into: gray)
    #expect(gray.width == 3 && gray.height == 2 && gray.format == .gray8)
    #expect(gray.byteArray == [76, 150, 29, 255, 18, 0])
  }

  /// Worked by hand from R = Y + 1.402 Cr', G = Y − 0.344 Cb' − 0.714 Cr',
  /// B = Y + 1.772 Cb' (Cb' = U − 128, Cr' = V − 128), clamped to 0...255.
  @Test func yuvToRGBUsesFullRangeBT601() throws {
    let yuv = image(
      .yuv420p, width: 4, height: 2,
      [
        100, 100, 50, 255,
        100, 100, 50, 0,
        128, 168,  // U: Cb' = 0, 40
        228, 88,  // V: Cr' = 100, −40
      ])
    let rgb = ImageBuffer(format: .rgb8)
    try ImageConversion.yuv420pToRGB8(yuv, into: rgb)
    #expect(rgb.width == 4 && rgb.height == 2 && rgb.format == .rgb8)
    #expect(
      rgb.byteArray == [
        240, 29, 100, 240, 29, 100, 0, 65, 121, 199, 255, 255,
        240, 29, 100, 240, 29, 100, 0, 65, 121, 0, 15, 71,
      ])
  }

  /// Odd sizes have a half-filled last chroma column and row.
  @Test func yuvToRGBAtAnOddSize() throws {
    let yuv = image(
      .yuv420p, width: 3, height: 3,
      [UInt8](repeating: 128, count: 9) + [128, 128, 128, 128] + [128, 200, 60, 128])
    let rgb = ImageBuffer(format: .rgb8)
    try ImageConversion.yuv420pToRGB8(yuv, into: rgb)
    let grey: [UInt8] = [128, 128, 128]
    let pink: [UInt8] = [229, 77, 128]
    let green: [UInt8] = [33, 177, 128]
    #expect(rgb.byteArray == grey + grey + pink + grey + grey + pink + green + green + grey)
  }

  @Test func yuvToGrayIsTheLumaPlane() throws {
    let yuv = image(.yuv420p, width: 3, height: 1, [1, 2, 3, 200, 201, 50, 51])
    let gray = ImageBuffer(format: .gray8)
    try ImageConversion.yuv420pToGray8(yuv, into: gray)
    #expect(gray.width == 3 && gray.height == 1 && gray.byteArray == [1, 2, 3])
  }

  @Test func convertCoversEveryPairButTowardsYUV() throws {
    let gray = image(.gray8, width: 2, height: 1, [7, 9])
    let rgb = ImageBuffer(format: .rgb8)
    try ImageConversion.convert(gray, to: .rgb8, into: rgb)
    #expect(rgb.byteArray == [7, 7, 7, 9, 9, 9])
    let back = ImageBuffer(format: .gray8)
    try ImageConversion.convert(rgb, to: .gray8, into: back)
    #expect(back.byteArray == [7, 9])
    let copy = ImageBuffer(format: .yuv420p)
    try ImageConversion.convert(gray, to: .gray8, into: copy)
    #expect(copy.format == .gray8 && copy.byteArray == [7, 9])
    let error = #expect(throws: ImagingError.self) { try ImageConversion.convert(rgb, to: .yuv420p, into: copy) }
    #expect(error?.kind == .unsupported)
  }

  @Test func wrongFormatsAndAliasingAreRefused() throws {
    let rgb = ImageBuffer(width: 2, height: 2, format: .rgb8)
    let gray = ImageBuffer(width: 2, height: 2, format: .gray8)
    #expect(throws: ImagingError(.unsupported, "yuv420pToRGB8 needs a yuv420p image, not rgb8")) {
      try ImageConversion.yuv420pToRGB8(rgb, into: gray)
    }
    let error = #expect(throws: ImagingError.self) { try ImageConversion.rgb8ToGray8(rgb, into: rgb) }
    #expect(error?.kind == .invalidArgument)
  }

  @Test func conversionsReuseTheDestination() throws {
    let frame = ImageBuffer(format: .rgb8)
    try JPEGDecoder().decode(try fixtureFrame(), into: frame, format: .rgb8)
    let gray = ImageBuffer(format: .gray8)
    try ImageConversion.rgb8ToGray8(frame, into: gray)
    let pixels = gray.pixels
    try ImageConversion.rgb8ToGray8(frame, into: gray)
    try ImageConversion.crop(frame, x: 10, y: 10, width: 100, height: 100, into: gray)
    try ImageConversion.resize(frame, width: 320, height: 180, into: gray)
    #expect(gray.pixels == pixels)
  }
}

@Suite struct CropTests {
  // 4×3, values 0...11 row by row.
  let gray = image(.gray8, width: 4, height: 3, (0..<12).map { UInt8($0) })
  let destination = ImageBuffer(format: .gray8)

  @Test func cropInside() throws {
    let region = try ImageConversion.crop(gray, x: 1, y: 1, width: 2, height: 2, into: destination)
    #expect(region == RegionOfInterest(x: 1, y: 1, width: 2, height: 2))
    #expect(destination.width == 2 && destination.height == 2 && destination.byteArray == [5, 6, 9, 10])
  }

  @Test func cropOverTheEdgesIsClamped() throws {
    var region = try ImageConversion.crop(gray, x: -1, y: -1, width: 3, height: 3, into: destination)
    #expect(region == RegionOfInterest(x: 0, y: 0, width: 2, height: 2))
    #expect(destination.byteArray == [0, 1, 4, 5])
    region = try ImageConversion.crop(gray, x: 3, y: 2, width: 10, height: 10, into: destination)
    #expect(region == RegionOfInterest(x: 3, y: 2, width: 1, height: 1))
    #expect(destination.byteArray == [11])
    region = try ImageConversion.crop(
      gray, to: RegionOfInterest(x: -5, y: -5, width: 50, height: 50), into: destination)
    #expect(region == RegionOfInterest(of: gray) && destination.byteArray == gray.byteArray)
  }

  @Test func cropOutsideIsEmpty() throws {
    for (x, y, width, height) in [
      (10, 0, 2, 2), (0, 3, 2, 2), (-5, 0, 3, 2), (1, 1, 0, 2), (1, 1, -3, 2), (Int.max, Int.max, Int.max, Int.max),
      (Int.min, Int.min, Int.max, Int.max),
    ] {
      let region = try ImageConversion.crop(gray, x: x, y: y, width: width, height: height, into: destination)
      #expect(region.isEmpty, "\(x) \(y) \(width) \(height)")
      #expect(destination.byteCount == 0 && destination.format == .gray8)
    }
  }

  @Test func cropRGB() throws {
    let rgb = image(.rgb8, width: 3, height: 2, (0..<18).map { UInt8($0) })
    let out = ImageBuffer(format: .rgb8)
    try ImageConversion.crop(rgb, x: 1, y: 0, width: 5, height: 2, into: out)
    #expect(out.width == 2 && out.height == 2 && out.format == .rgb8)
    #expect(out.byteArray == [3, 4, 5, 6, 7, 8, 12, 13, 14, 15, 16, 17])
  }

  @Test func cropRefusesYUV() throws {
    let error = #expect(throws: ImagingError.self) {
      try ImageConversion.crop(
        ImageBuffer(width: 4, height: 4, format: .yuv420p), x: 0, y: 0, width: 2, height: 2, into: destination)
    }
    #expect(error?.kind == .unsupported)
  }
}

@Suite struct ResizeTests {
  let destination = ImageBuffer(format: .gray8)

  @Test func halvingAveragesEachBlock() throws {
    let gray = image(.gray8, width: 4, height: 2, [10, 20, 30, 40, 50, 60, 70, 80])
    try ImageConversion.resize(gray, width: 2, height: 1, into: destination)
    #expect(destination.width == 2 && destination.height == 1 && destination.byteArray == [35, 55])
  }

  /// 3 → 2: each output pixel covers one and a half input pixels.
  @Test func shrinkingByAFractionWeighsPartialPixels() throws {
    let gray = image(.gray8, width: 3, height: 1, [30, 60, 90])
    try ImageConversion.resize(gray, width: 2, height: 1, into: destination)
    #expect(destination.byteArray == [40, 80])
  }

  /// Pixel centres: output 0...3 sit at input −0.25 (clamped), 0.25, 0.75, 1.25 (clamped).
  @Test func growingIsBilinear() throws {
    let gray = image(.gray8, width: 2, height: 2, [0, 100, 200, 40])
    try ImageConversion.resize(gray, width: 4, height: 4, into: destination)
    #expect(
      destination.byteArray == [
        0, 25, 75, 100,
        50, 59, 76, 85,
        150, 126, 79, 55,
        200, 160, 80, 40,
      ])
  }

  @Test func shrinkingOneAxisWhileGrowingTheOther() throws {
    let gray = image(.gray8, width: 2, height: 2, [0, 100, 200, 40])
    try ImageConversion.resize(gray, width: 1, height: 4, into: destination)
    #expect(destination.byteArray == [50, 68, 103, 120])
  }

  @Test func rgbChannelsStaySeparate() throws {
    let rgb = image(.rgb8, width: 2, height: 1, [10, 20, 30, 30, 40, 50])
    let out = ImageBuffer(format: .rgb8)
    try ImageConversion.resize(rgb, width: 1, height: 1, into: out)
    #expect(out.format == .rgb8 && out.byteArray == [20, 30, 40])
    try ImageConversion.resize(rgb, width: 4, height: 1, into: out)
    #expect(out.byteArray == [10, 20, 30, 15, 25, 35, 25, 35, 45, 30, 40, 50])
  }

  @Test(arguments: [(1, 1), (3, 11), (13, 2), (7, 5), (40, 1), (2, 30)])
  func aFlatImageStaysFlat(width: Int, height: Int) throws {
    let flat = image(.gray8, width: 7, height: 5, [UInt8](repeating: 77, count: 35))
    try ImageConversion.resize(flat, width: width, height: height, into: destination)
    #expect(destination.width == width && destination.height == height)
    #expect(destination.byteArray.allSatisfy { $0 == 77 })
  }

  @Test func areaAveragingKeepsTheMeanBrightness() throws {
    let frame = ImageBuffer(format: .gray8)
    try JPEGDecoder().decode(try fixtureFrame(), into: frame, format: .gray8)
    for (width, height) in [(320, 180), (213, 120), (64, 36), (1, 1)] {
      try ImageConversion.resize(frame, width: width, height: height, into: destination)
      #expect(abs(destination.meanValue - frame.meanValue) < 0.5, "\(width)×\(height)")
    }
  }

  @Test func sameSizeIsACopyAndZeroIsEmpty() throws {
    let gray = image(.gray8, width: 3, height: 1, [1, 2, 3])
    try ImageConversion.resize(gray, width: 3, height: 1, into: destination)
    #expect(destination.byteArray == [1, 2, 3])
    try ImageConversion.resize(gray, width: 0, height: 5, into: destination)
    #expect(destination.width == 0 && destination.height == 5 && destination.byteCount == 0)
  }

  @Test func impossibleResizesAreRefused() throws {
    let gray = image(.gray8, width: 3, height: 1, [1, 2, 3])
    for (source, width, height) in [(gray, -1, 2), (ImageBuffer(format: .gray8), 2, 2)] {
      let error = #expect(throws: ImagingError.self) {
        try ImageConversion.resize(source, width: width, height: height, into: destination)
      }
      #expect(error?.kind == .invalidArgument)
    }
    let error = #expect(throws: ImagingError.self) {
      try ImageConversion.resize(
        ImageBuffer(width: 2, height: 2, format: .yuv420p), width: 1, height: 1, into: destination)
    }
    #expect(error?.kind == .unsupported)
  }
}

/// The resize paths (2×2 blocks, whole-number blocks, general area,
/// bilinear, and the two mixes) against a floating-point transcription of
/// the definition, on noise, where any indexing slip shows.
@Suite struct ResizeReferenceTests {
  static let targets = [
    (32, 24), (16, 12), (32, 48), (21, 16), (40, 30), (100, 70), (64, 97), (30, 90), (90, 30), (1, 1),
  ]

  @Test(arguments: targets)
  func matchesTheDefinition(width: Int, height: Int) throws {
    for format in [PixelFormat.gray8, .rgb8] {
      var random = SeededBytes(seed: UInt64(width * 1000 + height))
      let noise = image(format, width: 64, height: 48, random.bytes(format.byteCount(width: 64, height: 48)))
      let resized = ImageBuffer(format: format)
      try ImageConversion.resize(noise, width: width, height: height, into: resized)
      let expected = referenceResize(noise, width: width, height: height)
      let worst = zip(resized.byteArray, expected).map { abs(Int($0) - Int($1)) }.max() ?? 0
      #expect(resized.byteCount == expected.count && worst <= 1, "\(format) \(width)×\(height): off by \(worst)")
    }
  }

  /// Source pixels and weights (summing to 1) for target pixel `target` of an axis.
  func axisWeights(source: Int, target: Int, at index: Int) -> [(Int, Double)] {
    let scale = Double(source) / Double(target)
    if target <= source {
      let low = Double(index) * scale
      let high = low + scale
      return (Int(low)..<min(source, Int(high.rounded(.up)))).compactMap { pixel in
        let overlap = min(Double(pixel + 1), high) - max(Double(pixel), low)
        return overlap > 0 ? (pixel, overlap / scale) : nil
      }
    }
    let centre = min(max((Double(index) + 0.5) * scale - 0.5, 0), Double(source - 1))
    let lower = Int(centre)
    let fraction = centre - Double(lower)
    return lower + 1 < source ? [(lower, 1 - fraction), (lower + 1, fraction)] : [(lower, 1)]
  }

  func referenceResize(_ source: ImageBuffer, width: Int, height: Int) -> [UInt8] {
    let channels = source.format.bytesPerPixel
    var result: [UInt8] = []
    for row in 0..<height {
      let rowWeights = axisWeights(source: source.height, target: height, at: row)
      for column in 0..<width {
        let columnWeights = axisWeights(source: source.width, target: width, at: column)
        for channel in 0..<channels {
          var total = 0.0
          for (sourceRow, rowWeight) in rowWeights {
            for (sourceColumn, columnWeight) in columnWeights {
              let value = source.pixels[sourceRow * source.rowBytes + sourceColumn * channels + channel]
              total += Double(value) * rowWeight * columnWeight
            }
          }
          result.append(UInt8(total.rounded()))
        }
      }
    }
    return result
  }
}
