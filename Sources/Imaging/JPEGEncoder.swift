import CTurboJPEG

/// Encodes `ImageBuffer`s to JPEG with one TurboJPEG handle and one output
/// buffer, both reused. The output buffer is sized for the worst case of the
/// image size, so TurboJPEG never has to reallocate it mid-encode.
///
/// Not thread-safe: use one encoder per thread.
public final class JPEGEncoder {
  // Only nil if TurboJPEG could not allocate it; retried on the next call
  // so that running out of memory once is an error, not a crash.
  private var existingHandle: tjhandle?
  private var output: UnsafeMutablePointer<UInt8>?
  private var outputCapacity = 0
  private let evenSizedPlanes = ImageBuffer(format: .yuv420p)

  public init() {
    existingHandle = tjInitCompress()
  }

  deinit {
    tjFree(output)
    if let existingHandle { tjDestroy(existingHandle) }
  }

  private func usableHandle() throws(ImagingError) -> tjhandle {
    if let existingHandle { return existingHandle }
    guard let created = tjInitCompress() else {
      throw ImagingError(.libraryFailure, "TurboJPEG could not create a compressor (out of memory)")
    }
    existingHandle = created
    return created
  }

  /// A new array with the JPEG bytes. `subsampling` applies to `.rgb8`
  /// images; `.gray8` always encodes as grayscale and `.yuv420p` as 4:2:0.
  public func encode(
    _ image: ImageBuffer, quality: Int = 90, subsampling: JPEGSubsampling = .yuv420
  ) throws(ImagingError) -> [UInt8] {
    let count = try compress(image, quality: quality, subsampling: subsampling)
    return Array(UnsafeBufferPointer(start: output, count: count))
  }

  /// Replaces the contents of `jpeg` with the JPEG bytes; allocates nothing
  /// when `jpeg`'s capacity already suffices.
  public func encode(
    _ image: ImageBuffer, quality: Int = 90, subsampling: JPEGSubsampling = .yuv420, into jpeg: inout [UInt8]
  ) throws(ImagingError) {
    let count = try compress(image, quality: quality, subsampling: subsampling)
    jpeg.removeAll(keepingCapacity: true)
    jpeg.append(contentsOf: UnsafeBufferPointer(start: output, count: count))
  }

  /// Compresses into `output` and returns the JPEG's byte count.
  private func compress(_ image: ImageBuffer, quality: Int, subsampling: JPEGSubsampling) throws(ImagingError) -> Int {
    guard (1...100).contains(quality) else {
      throw ImagingError(.invalidArgument, "JPEG quality must be 1...100, not \(quality)")
    }
    guard image.width > 0, image.height > 0 else {
      throw ImagingError(.invalidArgument, "cannot encode an empty \(image.width)×\(image.height) image")
    }
    guard image.width <= 65_535, image.height <= 65_535 else {
      throw ImagingError(.unsupported, "JPEG images are at most 65535 pixels wide and high")
    }
    let chroma: JPEGSubsampling
    switch image.format {
    case .gray8: chroma = .gray
    case .rgb8: chroma = subsampling
    case .yuv420p: chroma = .yuv420
    }
    let handle = try usableHandle()
    try reserveOutput(width: image.width, height: image.height, subsampling: chroma)

    var jpegBuffer = output
    var jpegSize = UInt(outputCapacity)
    let width = Int32(image.width)
    let height = Int32(image.height)
    let quality = Int32(quality)
    let status: Int32
    switch image.format {
    case .gray8, .rgb8:
      let pixelFormat = Int32(image.format == .gray8 ? TJPF_GRAY.rawValue : TJPF_RGB.rawValue)
      status = tjCompress2(
        handle, image.pixels, width, 0, height, pixelFormat, &jpegBuffer, &jpegSize, chroma.turboJPEGValue, quality,
        TJFLAG_NOREALLOC)
    case .yuv420p:
      // TurboJPEG's packed YUV layout (row alignment 1) is ours only for
      // even sizes: for odd ones it reads a luma plane padded to even size,
      // which would run past the end of our buffer.
      let planes = image.width % 2 == 0 && image.height % 2 == 0 ? image : padToEvenSize(image)
      status = tjCompressFromYUV(
        handle, planes.pixels, width, 1, height, chroma.turboJPEGValue, &jpegBuffer, &jpegSize,
        quality, TJFLAG_NOREALLOC)
    }
    if status != 0 {
      let text = tjGetErrorStr2(handle).map { String(cString: $0) } ?? "unknown TurboJPEG error"
      // As with the decoder, a fresh handle rules out state left by the failure.
      tjDestroy(handle)
      existingHandle = tjInitCompress()
      throw ImagingError(.libraryFailure, "JPEG encoding failed: \(text)")
    }
    return Int(jpegSize)
  }

  /// A copy of an odd-sized yuv420p image with its luma plane padded to
  /// even width and height by repeating the last column and row; the
  /// chroma planes are already that size.
  private func padToEvenSize(_ image: ImageBuffer) -> ImageBuffer {
    let width = image.width
    let height = image.height
    let paddedWidth = width + width % 2
    let paddedHeight = height + height % 2
    evenSizedPlanes.reshape(width: paddedWidth, height: paddedHeight, format: .yuv420p)
    let padded = evenSizedPlanes.pixels
    for row in 0..<paddedHeight {
      let line = padded + row * paddedWidth
      line.update(from: image.pixels + min(row, height - 1) * width, count: width)
      if paddedWidth > width { line[width] = line[width - 1] }
    }
    let chromaCount = image.byteCount - width * height
    (padded + paddedWidth * paddedHeight).update(from: image.pixels + width * height, count: chromaCount)
    return evenSizedPlanes
  }

  private func reserveOutput(width: Int, height: Int, subsampling: JPEGSubsampling) throws(ImagingError) {
    let worstCase = tjBufSize(Int32(width), Int32(height), subsampling.turboJPEGValue)
    guard worstCase != UInt.max, worstCase <= UInt(Int32.max) else {
      throw ImagingError(.unsupported, "a \(width)×\(height) image is too large to encode")
    }
    guard Int(worstCase) > outputCapacity else { return }
    tjFree(output)
    output = nil
    outputCapacity = 0
    guard let grown = tjAlloc(Int32(worstCase)) else {
      throw ImagingError(.libraryFailure, "out of memory for a \(worstCase)-byte JPEG buffer")
    }
    output = grown
    outputCapacity = Int(worstCase)
  }
}
