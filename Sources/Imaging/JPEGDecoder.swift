import CTurboJPEG

/// Decodes JPEG frames into reusable `ImageBuffer`s with one TurboJPEG
/// handle: a steady stream of same-size frames allocates no pixel memory.
/// (libjpeg itself still takes and frees its small per-image work areas,
/// about ten `malloc`s and 60 KB for a 640×360 frame; TurboJPEG offers no
/// way to keep them.)
///
/// Any damage is an error, including what libjpeg only warns about
/// ("Premature end of JPEG file", "Corrupt JPEG data"): libjpeg would fill
/// the missing part with grey and carry on, and a liveness check must not
/// judge a face from a half-received frame.
///
/// Not thread-safe: use one decoder per thread.
public final class JPEGDecoder {
  /// Images with more pixels than this are refused before any memory is
  /// taken, so a damaged header claiming 65535×65535 cannot exhaust memory.
  /// The default admits 8K UHD (7680×4320).
  public var maximumPixelCount: Int = ImageHeader.maximumPixelCount

  // Only nil if TurboJPEG could not allocate it; retried on the next call
  // so that running out of memory once is an error, not a crash.
  private var existingHandle: tjhandle?

  public init() {
    existingHandle = tjInitDecompress()
  }

  deinit {
    if let existingHandle { tjDestroy(existingHandle) }
  }

  /// A failed header read can leave a TurboJPEG 2.1 handle unusable: every
  /// later call fails ("Bogus Huffman table definition") even on good
  /// frames, because libjpeg's marker reader keeps its half-read state. One
  /// bad frame must not spoil the stream, so after any failure the handle
  /// is replaced.
  private func replaceHandle() {
    if let existingHandle { tjDestroy(existingHandle) }
    existingHandle = tjInitDecompress()
  }

  private func usableHandle() throws(ImagingError) -> tjhandle {
    if let existingHandle { return existingHandle }
    guard let created = tjInitDecompress() else {
      throw ImagingError(.libraryFailure, "TurboJPEG could not create a decompressor (out of memory)")
    }
    existingHandle = created
    return created
  }

  public func readHeader(_ bytes: UnsafeRawBufferPointer) throws(ImagingError) -> JPEGHeader {
    guard let base = bytes.baseAddress, !bytes.isEmpty else {
      throw ImagingError(.truncated, "JPEG data is empty (0 bytes)")
    }
    let handle = try usableHandle()
    var width: Int32 = 0
    var height: Int32 = 0
    var subsampling: Int32 = 0
    var colorspace: Int32 = 0
    let status = tjDecompressHeader3(
      handle, base.assumingMemoryBound(to: UInt8.self), UInt(bytes.count), &width, &height, &subsampling, &colorspace)
    if status != 0 {
      let error = turboJPEGError(handle: handle, bytes: bytes)
      replaceHandle()
      throw error
    }
    // Data cut before the frame header looks to libjpeg like a valid
    // "tables only" stream: it succeeds and reports a 0×0 image.
    guard width > 0, height > 0 else {
      replaceHandle()
      if endsWithEndOfImageMarker(bytes) {
        throw ImagingError(.corrupt, "JPEG data has no image, only tables (\(bytes.count) bytes)")
      }
      throw ImagingError(.truncated, "JPEG data ends before the image header (\(bytes.count) bytes)")
    }
    guard let knownSubsampling = JPEGSubsampling(turboJPEGValue: subsampling) else {
      throw ImagingError(.unsupported, "JPEG not supported: unusual chroma subsampling")
    }
    guard let knownColorspace = JPEGColorspace(turboJPEGValue: colorspace) else {
      throw ImagingError(.unsupported, "JPEG not supported: unknown colour space \(colorspace)")
    }
    return JPEGHeader(
      width: Int(width), height: Int(height), subsampling: knownSubsampling, colorspace: knownColorspace)
  }

  public func readHeader(_ bytes: [UInt8]) throws(ImagingError) -> JPEGHeader {
    try withRawBytes(of: bytes) { (raw) throws(ImagingError) in try readHeader(raw) }
  }

  /// Decodes into `buffer`, which takes the (scaled) size and `format`.
  /// `format` is `.gray8` (only the luma is decoded, which is cheaper) or
  /// `.rgb8`. `fast` trades a little accuracy for speed (fast integer DCT
  /// and nearest-neighbour chroma upsampling). After an error the buffer's
  /// contents are undefined.
  public func decode(
    _ bytes: UnsafeRawBufferPointer, into buffer: ImageBuffer, format: PixelFormat, scale: JPEGScale = .full,
    fast: Bool = false
  ) throws(ImagingError) {
    let pixelFormat: Int32
    switch format {
    case .gray8: pixelFormat = Int32(TJPF_GRAY.rawValue)
    case .rgb8: pixelFormat = Int32(TJPF_RGB.rawValue)
    case .yuv420p:
      throw ImagingError(.unsupported, "JPEG decoding produces gray8 or rgb8, not yuv420p")
    }
    let header = try readHeader(bytes)
    let handle = try usableHandle()
    if let problem = FrameSize.problem(width: header.width, height: header.height) {
      throw ImagingError(.unsupported, "the JPEG is " + problem)
    }
    guard header.width * header.height <= maximumPixelCount else {
      throw ImagingError(
        .unsupported,
        "JPEG is \(header.width)×\(header.height), more than the decoder's limit of \(maximumPixelCount) pixels")
    }
    let size = scale.scaledSize(width: header.width, height: header.height)
    buffer.reshape(width: size.width, height: size.height, format: format)
    var flags = TJFLAG_STOPONWARNING
    if fast { flags |= TJFLAG_FASTDCT | TJFLAG_FASTUPSAMPLE }
    let status = tjDecompress2(
      handle, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt(bytes.count), buffer.pixels,
      Int32(size.width), 0, Int32(size.height), pixelFormat, flags)
    if status != 0 {
      let error = turboJPEGError(handle: handle, bytes: bytes)
      replaceHandle()
      throw error
    }
  }

  public func decode(
    _ bytes: [UInt8], into buffer: ImageBuffer, format: PixelFormat, scale: JPEGScale = .full, fast: Bool = false
  ) throws(ImagingError) {
    try withRawBytes(of: bytes) { (raw) throws(ImagingError) in
      try decode(raw, into: buffer, format: format, scale: scale, fast: fast)
    }
  }
}
