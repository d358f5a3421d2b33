import Imaging

/// Unpacks raw camera buffers into a reused `ImageBuffer`. Each returns
/// false when the buffer is too short for the format (a truncated frame).
enum CameraPixels {
  /// Packed YUYV 4:2:2 (Y0 U Y1 V per pair of pixels) to planar YUV 4:2:0:
  /// luma is copied, and each chroma sample is the rounded mean of the two
  /// rows it covers.
  static func convertYUYV(
    _ source: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerLine: Int, into image: ImageBuffer
  ) -> Bool {
    let chromaWidth = (width + 1) / 2
    let chromaHeight = (height + 1) / 2
    guard width > 0, height > 0, bytesPerLine >= chromaWidth * 4,
      source.count >= bytesPerLine * (height - 1) + chromaWidth * 4, let base = source.baseAddress
    else { return false }
    image.reshape(width: width, height: height, format: .yuv420p)
    let input = base.assumingMemoryBound(to: UInt8.self)
    let luma = image.pixels
    let blue = luma + width * height
    let red = blue + chromaWidth * chromaHeight
    for y in 0..<height {
      let row = input + y * bytesPerLine
      let output = luma + y * width
      for x in 0..<width { output[x] = row[2 * x] }
    }
    for chromaY in 0..<chromaHeight {
      let top = input + 2 * chromaY * bytesPerLine
      // An odd last row has no partner below it: it stands alone.
      let bottom = 2 * chromaY + 1 < height ? top + bytesPerLine : top
      let blueRow = blue + chromaY * chromaWidth
      let redRow = red + chromaY * chromaWidth
      for chromaX in 0..<chromaWidth {
        let offset = 4 * chromaX
        blueRow[chromaX] = UInt8((UInt16(top[offset + 1]) + UInt16(bottom[offset + 1]) + 1) >> 1)
        redRow[chromaX] = UInt8((UInt16(top[offset + 3]) + UInt16(bottom[offset + 3]) + 1) >> 1)
      }
    }
    return true
  }

  /// Planar YUV 4:2:0 with the chroma rows at half the luma stride (libv4l's output).
  static func copyYUV420(
    _ source: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerLine: Int, into image: ImageBuffer
  ) -> Bool {
    let chromaWidth = (width + 1) / 2
    let chromaHeight = (height + 1) / 2
    let lumaStride = max(bytesPerLine, width)
    let chromaStride = max(lumaStride / 2, chromaWidth)
    let needed = lumaStride * height + 2 * chromaStride * chromaHeight
    guard width > 0, height > 0, source.count >= needed, let base = source.baseAddress else { return false }
    image.reshape(width: width, height: height, format: .yuv420p)
    let input = base.assumingMemoryBound(to: UInt8.self)
    copyRows(from: input, stride: lumaStride, to: image.pixels, rowBytes: width, rows: height)
    let inputBlue = input + lumaStride * height
    let outputBlue = image.pixels + width * height
    copyRows(from: inputBlue, stride: chromaStride, to: outputBlue, rowBytes: chromaWidth, rows: chromaHeight)
    copyRows(
      from: inputBlue + chromaStride * chromaHeight, stride: chromaStride,
      to: outputBlue + chromaWidth * chromaHeight, rowBytes: chromaWidth, rows: chromaHeight)
    return true
  }

  /// Packed 8-bit RGB (libv4l's RGB24 output).
  static func copyRGB24(
    _ source: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerLine: Int, into image: ImageBuffer
  ) -> Bool {
    let stride = max(bytesPerLine, width * 3)
    guard width > 0, height > 0, source.count >= stride * (height - 1) + width * 3, let base = source.baseAddress
    else { return false }
    image.reshape(width: width, height: height, format: .rgb8)
    copyRows(
      from: base.assumingMemoryBound(to: UInt8.self), stride: stride, to: image.pixels, rowBytes: width * 3,
      rows: height)
    return true
  }

  private static func copyRows(
    from input: UnsafePointer<UInt8>, stride: Int, to output: UnsafeMutablePointer<UInt8>, rowBytes: Int, rows: Int
  ) {
    for row in 0..<rows { (output + row * rowBytes).update(from: input + row * stride, count: rowBytes) }
  }
}
