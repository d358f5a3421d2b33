/// Pixel format conversions, crops and resizes into caller-owned buffers.
/// None of them allocates once the destination has grown to the frame size.
///
/// Colour uses BT.601 full range, the YCbCr of JPEG (JFIF), with libjpeg's
/// 16-bit fixed-point coefficients, so a conversion here gives the values
/// TurboJPEG would.
public enum ImageConversion {
  /// Converts `source` to `format` in `destination`. Supports every pair
  /// except towards `.yuv420p` (same-format copies included).
  public static func convert(
    _ source: ImageBuffer, to format: PixelFormat, into destination: ImageBuffer
  ) throws(ImagingError) {
    try requireDistinct(source, destination)
    switch (source.format, format) {
    case (.gray8, .gray8), (.rgb8, .rgb8), (.yuv420p, .yuv420p):
      destination.reshape(width: source.width, height: source.height, format: format)
      destination.pixels.update(from: source.pixels, count: source.byteCount)
    case (.yuv420p, .gray8): try yuv420pToGray8(source, into: destination)
    case (.yuv420p, .rgb8): try yuv420pToRGB8(source, into: destination)
    case (.rgb8, .gray8): try rgb8ToGray8(source, into: destination)
    case (.gray8, .rgb8): try gray8ToRGB8(source, into: destination)
    case (.gray8, .yuv420p), (.rgb8, .yuv420p):
      throw ImagingError(.unsupported, "converting \(source.format) to yuv420p is not supported")
    }
  }

  /// The luma plane, which is exactly what a gray image is.
  public static func yuv420pToGray8(_ source: ImageBuffer, into destination: ImageBuffer) throws(ImagingError) {
    try require(source, is: .yuv420p, for: "yuv420pToGray8")
    try requireDistinct(source, destination)
    destination.reshape(width: source.width, height: source.height, format: .gray8)
    destination.pixels.update(from: source.pixels, count: source.width * source.height)
  }

  /// Each chroma sample covers a 2×2 block of pixels (no interpolation,
  /// like TurboJPEG's fast upsampling).
  public static func yuv420pToRGB8(_ source: ImageBuffer, into destination: ImageBuffer) throws(ImagingError) {
    try require(source, is: .yuv420p, for: "yuv420pToRGB8")
    try requireDistinct(source, destination)
    let width = source.width
    let height = source.height
    let chromaWidth = (width + 1) / 2
    let chromaHeight = (height + 1) / 2
    destination.reshape(width: width, height: height, format: .rgb8)
    let lumaPlane = source.pixels
    let blueDifferencePlane = lumaPlane + width &* height
    let redDifferencePlane = blueDifferencePlane + chromaWidth &* chromaHeight
    // Wrapping arithmetic: the values are bounded (|products| < 2^24), and
    // an overflow check per operation would cost more than the work.
    for row in 0..<height {
      let luma = lumaPlane + row &* width
      let blueDifference = blueDifferencePlane + (row &>> 1) &* chromaWidth
      let redDifference = redDifferencePlane + (row &>> 1) &* chromaWidth
      let output = destination.pixels + row &* width &* 3
      // One chroma sample serves two pixels: convert it once per pair.
      for chromaColumn in 0..<width &>> 1 {
        let cb = Int32(blueDifference[chromaColumn]) &- 128
        let cr = Int32(redDifference[chromaColumn]) &- 128
        let redOffset = (91_881 &* cr &+ 32_768) &>> 16
        let greenOffset = (-22_554 &* cb &- 46_802 &* cr &+ 32_768) &>> 16
        let blueOffset = (116_130 &* cb &+ 32_768) &>> 16
        let pair = output + chromaColumn &* 6
        let leftLuma = Int32(luma[chromaColumn &* 2])
        let rightLuma = Int32(luma[chromaColumn &* 2 &+ 1])
        pair[0] = clampedByte(leftLuma &+ redOffset)
        pair[1] = clampedByte(leftLuma &+ greenOffset)
        pair[2] = clampedByte(leftLuma &+ blueOffset)
        pair[3] = clampedByte(rightLuma &+ redOffset)
        pair[4] = clampedByte(rightLuma &+ greenOffset)
        pair[5] = clampedByte(rightLuma &+ blueOffset)
      }
      if width & 1 == 1 {
        let lastColumn = width &- 1
        let cb = Int32(blueDifference[lastColumn &>> 1]) &- 128
        let cr = Int32(redDifference[lastColumn &>> 1]) &- 128
        let lastLuma = Int32(luma[lastColumn])
        output[lastColumn &* 3] = clampedByte(lastLuma &+ ((91_881 &* cr &+ 32_768) &>> 16))
        output[lastColumn &* 3 &+ 1] = clampedByte(lastLuma &+ ((-22_554 &* cb &- 46_802 &* cr &+ 32_768) &>> 16))
        output[lastColumn &* 3 &+ 2] = clampedByte(lastLuma &+ ((116_130 &* cb &+ 32_768) &>> 16))
      }
    }
  }

  /// Integer BT.601 luma: (19595 R + 38470 G + 7471 B) / 65536, rounded.
  public static func rgb8ToGray8(_ source: ImageBuffer, into destination: ImageBuffer) throws(ImagingError) {
    try require(source, is: .rgb8, for: "rgb8ToGray8")
    try requireDistinct(source, destination)
    let count = source.width * source.height
    destination.reshape(width: source.width, height: source.height, format: .gray8)
    let input = source.pixels
    let output = destination.pixels
    for index in 0..<count {
      let red = UInt32(input[index &* 3])
      let green = UInt32(input[index &* 3 &+ 1])
      let blue = UInt32(input[index &* 3 &+ 2])
      output[index] = UInt8(truncatingIfNeeded: (19_595 &* red &+ 38_470 &* green &+ 7_471 &* blue &+ 32_768) &>> 16)
    }
  }

  public static func gray8ToRGB8(_ source: ImageBuffer, into destination: ImageBuffer) throws(ImagingError) {
    try require(source, is: .gray8, for: "gray8ToRGB8")
    try requireDistinct(source, destination)
    let count = source.width * source.height
    destination.reshape(width: source.width, height: source.height, format: .rgb8)
    let input = source.pixels
    let output = destination.pixels
    for index in 0..<count {
      output[index &* 3] = input[index]
      output[index &* 3 &+ 1] = input[index]
      output[index &* 3 &+ 2] = input[index]
    }
  }

  /// Copies the part of the rectangle that lies inside `source` (gray8 or
  /// rgb8) and returns that part; a rectangle wholly outside gives a 0-pixel image.
  @discardableResult
  public static func crop(
    _ source: ImageBuffer, x: Int, y: Int, width: Int, height: Int, into destination: ImageBuffer
  ) throws(ImagingError) -> RegionOfInterest {
    try crop(source, to: RegionOfInterest(x: x, y: y, width: width, height: height), into: destination)
  }

  @discardableResult
  public static func crop(
    _ source: ImageBuffer, to region: RegionOfInterest, into destination: ImageBuffer
  ) throws(ImagingError) -> RegionOfInterest {
    try requirePacked(source, for: "crop")
    try requireDistinct(source, destination)
    let inside = region.clamped(to: source)
    let bytesPerPixel = source.format.bytesPerPixel
    destination.reshape(width: inside.width, height: inside.height, format: source.format)
    let rowBytes = inside.width * bytesPerPixel
    guard rowBytes > 0 else { return inside }
    for row in 0..<inside.height {
      let from = source.pixels + (inside.y + row) * source.rowBytes + inside.x * bytesPerPixel
      (destination.pixels + row * rowBytes).update(from: from, count: rowBytes)
    }
    return inside
  }

  /// Resizes `source` (gray8 or rgb8) to `width`×`height`. Along an axis
  /// that shrinks, each output pixel is the exact area-weighted average of
  /// the source pixels it covers (no aliasing, whatever the ratio); along an
  /// axis that grows, it is bilinear between pixel centres.
  public static func resize(
    _ source: ImageBuffer, width: Int, height: Int, into destination: ImageBuffer
  ) throws(ImagingError) {
    try requirePacked(source, for: "resize")
    try requireDistinct(source, destination)
    guard width >= 0, height >= 0 else {
      throw ImagingError(.invalidArgument, "cannot resize to \(width)×\(height)")
    }
    let isEmptyTarget = width == 0 || height == 0
    guard isEmptyTarget || (source.width > 0 && source.height > 0) else {
      throw ImagingError(
        .invalidArgument, "cannot resize an empty \(source.width)×\(source.height) image to \(width)×\(height)")
    }
    destination.reshape(width: width, height: height, format: source.format)
    if isEmptyTarget { return }
    if width == source.width && height == source.height {
      destination.pixels.update(from: source.pixels, count: source.byteCount)
      return
    }
    let channels = source.format.bytesPerPixel
    let shrinksWidth = width <= source.width
    let shrinksHeight = height <= source.height
    if shrinksWidth && shrinksHeight && source.width % width == 0 && source.height % height == 0 {
      // Whole-number factors (2:1, 4:1...), the usual case before an
      // estimator, are plain block averages: no partial pixels to weigh.
      let factorX = source.width / width
      let factorY = source.height / height
      if factorX == 2 && factorY == 2 {
        channels == 3
          ? averageBlocksOfTwoByTwo(source, into: destination, channels: 3)
          : averageBlocksOfTwoByTwo(source, into: destination, channels: 1)
      } else {
        channels == 3
          ? averageBlocks(source, into: destination, factorX: factorX, factorY: factorY, channels: 3)
          : averageBlocks(source, into: destination, factorX: factorX, factorY: factorY, channels: 1)
      }
      return
    }
    switch (shrinksWidth, shrinksHeight, channels) {
    case (true, true, 1): resample(source, into: destination, AreaAxis.self, AreaAxis.self, channels: 1)
    case (true, true, _): resample(source, into: destination, AreaAxis.self, AreaAxis.self, channels: 3)
    case (false, false, 1): interpolateBilinearly(source, into: destination, channels: 1)
    case (false, false, _): interpolateBilinearly(source, into: destination, channels: 3)
    case (true, false, 1): resample(source, into: destination, AreaAxis.self, LinearAxis.self, channels: 1)
    case (true, false, _): resample(source, into: destination, AreaAxis.self, LinearAxis.self, channels: 3)
    case (false, true, 1): resample(source, into: destination, LinearAxis.self, AreaAxis.self, channels: 1)
    case (false, true, _): resample(source, into: destination, LinearAxis.self, AreaAxis.self, channels: 3)
    }
  }

  @inline(__always)
  private static func averageBlocksOfTwoByTwo(_ source: ImageBuffer, into destination: ImageBuffer, channels: Int) {
    let sourceRowBytes = source.rowBytes
    let targetRowBytes = destination.rowBytes
    for targetRow in 0..<destination.height {
      let upper = source.pixels + (targetRow &* 2) &* sourceRowBytes
      let lower = upper + sourceRowBytes
      let output = destination.pixels + targetRow &* targetRowBytes
      for targetColumn in 0..<destination.width {
        let left = targetColumn &* 2 &* channels
        for channel in 0..<channels {
          let sum =
            UInt32(upper[left &+ channel]) &+ UInt32(upper[left &+ channels &+ channel])
            &+ UInt32(lower[left &+ channel]) &+ UInt32(lower[left &+ channels &+ channel])
          output[targetColumn &* channels &+ channel] = UInt8(truncatingIfNeeded: (sum &+ 2) &>> 2)
        }
      }
    }
  }

  @inline(__always)
  private static func averageBlocks(
    _ source: ImageBuffer, into destination: ImageBuffer, factorX: Int, factorY: Int, channels: Int
  ) {
    let sourceRowBytes = source.rowBytes
    let divider = RoundingDivider(UInt64(factorX &* factorY))
    var output = destination.pixels
    for targetRow in 0..<destination.height {
      let top = source.pixels + (targetRow &* factorY) &* sourceRowBytes
      for targetColumn in 0..<destination.width {
        let left = top + targetColumn &* factorX &* channels
        for channel in 0..<channels {
          var sum: UInt64 = 0
          var line = left + channel
          for _ in 0..<factorY {
            for column in 0..<factorX { sum &+= UInt64(line[column &* channels]) }
            line += sourceRowBytes
          }
          output.pointee = UInt8(truncatingIfNeeded: divider.roundedQuotient(sum))
          output += 1
        }
      }
    }
  }

  /// Growing on both axes: two taps per axis, so the taps are unrolled.
  @inline(__always)
  private static func interpolateBilinearly(_ source: ImageBuffer, into destination: ImageBuffer, channels: Int) {
    let sourceRowBytes = source.rowBytes
    var rows = LinearAxis(sourceLength: source.height, targetLength: destination.height)
    let firstColumn = LinearAxis(sourceLength: source.width, targetLength: destination.width)
    let divider = RoundingDivider(UInt64(truncatingIfNeeded: firstColumn.denominator &* rows.denominator))
    var output = destination.pixels
    for _ in 0..<destination.height {
      let upper = source.pixels + rows.first &* sourceRowBytes
      let lower = upper + (rows.tapCount &- 1) &* sourceRowBytes
      let lowerWeight = rows.upperWeight
      let upperWeight = UInt64(truncatingIfNeeded: rows.denominator) &- lowerWeight
      var columns = firstColumn
      for _ in 0..<destination.width {
        let left = columns.first &* channels
        let right = left &+ (columns.tapCount &- 1) &* channels
        let rightWeight = columns.upperWeight
        let leftWeight = UInt64(truncatingIfNeeded: columns.denominator) &- rightWeight
        for channel in 0..<channels {
          let top = UInt64(upper[left &+ channel]) &* leftWeight &+ UInt64(upper[right &+ channel]) &* rightWeight
          let bottom = UInt64(lower[left &+ channel]) &* leftWeight &+ UInt64(lower[right &+ channel]) &* rightWeight
          output.pointee = UInt8(
            truncatingIfNeeded: divider.roundedQuotient(top &* upperWeight &+ bottom &* lowerWeight))
          output += 1
        }
        columns.advance()
      }
      rows.advance()
    }
  }

  /// Each target pixel is the weighted sum of the source pixels its column
  /// and row taps select, divided by the product of the two axes'
  /// denominators with rounding. Specialized per axis kind and channel
  /// count (gray uses channel 0 only); the arithmetic wraps because every
  /// value is bounded (weights below 2^17 per axis for images up to 65535
  /// pixels, pixels below 2^8).
  @inline(__always)
  private static func resample<Columns: ResamplingAxis, Rows: ResamplingAxis>(
    _ source: ImageBuffer, into destination: ImageBuffer, _ columnKind: Columns.Type, _ rowKind: Rows.Type,
    channels: Int
  ) {
    let sourceRowBytes = source.rowBytes
    var rows = Rows(sourceLength: source.height, targetLength: destination.height)
    let firstColumn = Columns(sourceLength: source.width, targetLength: destination.width)
    let divider = RoundingDivider(UInt64(truncatingIfNeeded: firstColumn.denominator &* rows.denominator))
    var output = destination.pixels
    for _ in 0..<destination.height {
      var columns = firstColumn
      let firstRow = source.pixels + rows.first &* sourceRowBytes
      for _ in 0..<destination.width {
        var line = firstRow + columns.first &* channels
        var channel0: UInt64 = 0
        var channel1: UInt64 = 0
        var channel2: UInt64 = 0
        for rowTap in 0..<rows.tapCount {
          var rowChannel0: UInt64 = 0
          var rowChannel1: UInt64 = 0
          var rowChannel2: UInt64 = 0
          var pixel = line
          for columnTap in 0..<columns.tapCount {
            let weight = columns.weight(columnTap)
            rowChannel0 &+= UInt64(pixel[0]) &* weight
            if channels == 3 {
              rowChannel1 &+= UInt64(pixel[1]) &* weight
              rowChannel2 &+= UInt64(pixel[2]) &* weight
            }
            pixel += channels
          }
          let weight = rows.weight(rowTap)
          channel0 &+= rowChannel0 &* weight
          channel1 &+= rowChannel1 &* weight
          channel2 &+= rowChannel2 &* weight
          line += sourceRowBytes
        }
        output[0] = UInt8(truncatingIfNeeded: divider.roundedQuotient(channel0))
        if channels == 3 {
          output[1] = UInt8(truncatingIfNeeded: divider.roundedQuotient(channel1))
          output[2] = UInt8(truncatingIfNeeded: divider.roundedQuotient(channel2))
        }
        output += channels
        columns.advance()
      }
      rows.advance()
    }
  }

  @inline(__always)
  private static func clampedByte(_ value: Int32) -> UInt8 {
    UInt8(truncatingIfNeeded: min(max(value, 0), 255))
  }

  private static func require(_ image: ImageBuffer, is format: PixelFormat, for operation: String) throws(ImagingError)
  {
    guard image.format == format else {
      throw ImagingError(.unsupported, "\(operation) needs a \(format) image, not \(image.format)")
    }
  }

  private static func requirePacked(_ image: ImageBuffer, for operation: String) throws(ImagingError) {
    guard image.format != .yuv420p else {
      throw ImagingError(.unsupported, "\(operation) takes gray8 or rgb8 images, not yuv420p")
    }
  }

  private static func requireDistinct(_ source: ImageBuffer, _ destination: ImageBuffer) throws(ImagingError) {
    guard source !== destination else {
      throw ImagingError(.invalidArgument, "the destination must be a different buffer from the source")
    }
  }
}
