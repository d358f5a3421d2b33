import CTurboJPEG

/// How a JPEG stores its colour (chroma) samples relative to the luma.
public enum JPEGSubsampling: Sendable, Equatable, CaseIterable, CustomStringConvertible {
  case yuv444
  case yuv422
  case yuv420
  case gray
  case yuv440
  case yuv411

  public var description: String {
    switch self {
    case .yuv444: return "4:4:4"
    case .yuv422: return "4:2:2"
    case .yuv420: return "4:2:0"
    case .gray: return "gray"
    case .yuv440: return "4:4:0"
    case .yuv411: return "4:1:1"
    }
  }

  init?(turboJPEGValue value: Int32) {
    switch value {
    case Int32(TJSAMP_444.rawValue): self = .yuv444
    case Int32(TJSAMP_422.rawValue): self = .yuv422
    case Int32(TJSAMP_420.rawValue): self = .yuv420
    case Int32(TJSAMP_GRAY.rawValue): self = .gray
    case Int32(TJSAMP_440.rawValue): self = .yuv440
    case Int32(TJSAMP_411.rawValue): self = .yuv411
    default: return nil
    }
  }

  var turboJPEGValue: Int32 {
    switch self {
    case .yuv444: return Int32(TJSAMP_444.rawValue)
    case .yuv422: return Int32(TJSAMP_422.rawValue)
    case .yuv420: return Int32(TJSAMP_420.rawValue)
    case .gray: return Int32(TJSAMP_GRAY.rawValue)
    case .yuv440: return Int32(TJSAMP_440.rawValue)
    case .yuv411: return Int32(TJSAMP_411.rawValue)
    }
  }
}

/// The colour space the JPEG data is stored in (not the one it decodes to).
public enum JPEGColorspace: Sendable, Equatable, CustomStringConvertible {
  case rgb
  case yCbCr
  case gray
  case cmyk
  case ycck

  public var description: String {
    switch self {
    case .rgb: return "RGB"
    case .yCbCr: return "YCbCr"
    case .gray: return "gray"
    case .cmyk: return "CMYK"
    case .ycck: return "YCCK"
    }
  }

  init?(turboJPEGValue value: Int32) {
    switch value {
    case Int32(TJCS_RGB.rawValue): self = .rgb
    case Int32(TJCS_YCbCr.rawValue): self = .yCbCr
    case Int32(TJCS_GRAY.rawValue): self = .gray
    case Int32(TJCS_CMYK.rawValue): self = .cmyk
    case Int32(TJCS_YCCK.rawValue): self = .ycck
    default: return nil
    }
  }
}

/// What a JPEG's header says, read without decoding the pixels.
public struct JPEGHeader: Sendable, Equatable {
  public var width: Int
  public var height: Int
  public var subsampling: JPEGSubsampling
  public var colorspace: JPEGColorspace

  public init(width: Int, height: Int, subsampling: JPEGSubsampling, colorspace: JPEGColorspace) {
    self.width = width
    self.height = height
    self.subsampling = subsampling
    self.colorspace = colorspace
  }
}

/// Decoding at a fraction of the full size. TurboJPEG scales inside the
/// inverse DCT, so a smaller decode is much cheaper than a full decode
/// followed by a resize.
public enum JPEGScale: Sendable, Equatable, CaseIterable, CustomStringConvertible {
  case full
  case half
  case quarter
  case eighth

  public var denominator: Int {
    switch self {
    case .full: return 1
    case .half: return 2
    case .quarter: return 4
    case .eighth: return 8
    }
  }

  /// The decoded size: rounded up, as TurboJPEG's `TJSCALED` does.
  public func scaledSize(width: Int, height: Int) -> (width: Int, height: Int) {
    ((width + denominator - 1) / denominator, (height + denominator - 1) / denominator)
  }

  public var description: String {
    switch self {
    case .full: return "full"
    case .half: return "1/2"
    case .quarter: return "1/4"
    case .eighth: return "1/8"
    }
  }
}

/// Turns TurboJPEG's last error on `handle` into an `ImagingError`.
///
/// TurboJPEG reports libjpeg's message text and only tells warnings from
/// fatal errors, so the kind is read from the message: libjpeg's wording for
/// these cases has been stable for decades. A cut inside the header tables
/// reads as damage to libjpeg (it pads missing data with an end-of-image
/// marker and then finds that marker inside a table), so a stream that
/// starts like a JPEG but has no end-of-image marker counts as truncated.
func turboJPEGError(handle: tjhandle, bytes: UnsafeRawBufferPointer) -> ImagingError {
  let text = tjGetErrorStr2(handle).map { String(cString: $0) } ?? "unknown TurboJPEG error"
  var kind = errorKind(forLibraryMessage: text)
  if kind == .corrupt && startsWithStartOfImageMarker(bytes) && !endsWithEndOfImageMarker(bytes) {
    kind = .truncated
  }
  switch kind {
  case .truncated:
    return ImagingError(.truncated, "JPEG data ends early (\(bytes.count) bytes): \(text)")
  case .unsupported:
    return ImagingError(.unsupported, "JPEG not supported: \(text)")
  case .libraryFailure:
    return ImagingError(.libraryFailure, "TurboJPEG failed: \(text)")
  default:
    return ImagingError(.corrupt, "JPEG data is damaged (\(bytes.count) bytes): \(text)")
  }
}

func startsWithStartOfImageMarker(_ bytes: UnsafeRawBufferPointer) -> Bool {
  bytes.count >= 2 && bytes[0] == 0xFF && bytes[1] == 0xD8
}

/// Whether the data ends with EOI, allowing for the zero padding some
/// cameras append to MJPEG frames.
func endsWithEndOfImageMarker(_ bytes: UnsafeRawBufferPointer) -> Bool {
  var end = bytes.count
  while end > 0 && bytes[end - 1] == 0 { end -= 1 }
  return end >= 2 && bytes[end - 2] == 0xFF && bytes[end - 1] == 0xD9
}

func errorKind(forLibraryMessage text: String) -> ImagingError.Kind {
  // "Premature end of data segment" is a damaged entropy stream, not a short
  // file, so only libjpeg's end-of-input messages count as truncation.
  let truncation = ["Premature end of JPEG file", "Premature end of input file", "Empty input file"]
  let unsupported = [
    "Unsupported JPEG data precision", "Unsupported color conversion", "Not implemented yet",
    "Requested feature was omitted", "Could not determine subsampling", "Maximum supported image dimension",
    "Image too wide", "Unsupported JPEG process", "Sorry, ",
  ]
  let library = ["Insufficient memory", "Memory allocation failure"]
  if truncation.contains(where: { text.contains($0) }) { return .truncated }
  if unsupported.contains(where: { text.contains($0) }) { return .unsupported }
  if library.contains(where: { text.contains($0) }) { return .libraryFailure }
  return .corrupt
}

/// `Array.withUnsafeBytes` only rethrows untyped errors; this keeps them typed.
func withRawBytes<Result>(
  of bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(ImagingError) -> Result
) throws(ImagingError) -> Result {
  try bytes.withUnsafeBytes { raw in Swift.Result { () throws(ImagingError) in try body(raw) } }.get()
}
