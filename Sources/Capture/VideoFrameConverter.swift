import CFFmpeg
import Imaging

/// Turns the 4:2:0 frames of videos and Y4M files into what the estimators
/// read (RGB, luma), at the size they need, with libswscale's SIMD code:
/// at 1080p the per-pixel loop in Swift cost 15 % of a face flow's run.
/// Keeps its libswscale contexts and scratch planes from frame to frame;
/// one per frame loop.
public final class VideoFrameConverter {
  private let converter: OpaquePointer?
  private var message = [CChar](repeating: 0, count: 256)

  public init() { converter = wb_pixel_converter_new() }

  deinit { wb_pixel_converter_free(converter) }

  /// Fills `color` (when given) and `gray` with `source` (full-range
  /// yuv420p) at `width` × `height`, scaled when that is smaller.
  public func convert(_ source: ImageBuffer, width: Int, height: Int, color: ImageBuffer?, gray: ImageBuffer)
    throws(ImagingError)
  {
    guard source.format == .yuv420p else {
      throw ImagingError(.unsupported, "the video frame converter takes yuv420p, not \(source.format)")
    }
    if let half = source.halfSize, half.width == width, half.height == height {
      // Made by the source as it decoded: the same bytes as halving here, without reading the frame again.
      return try convert(half, width: width, height: height, color: color, gray: gray)
    }
    guard let converter else {
      let reason = FFmpegLibraries.loadError.map { "FFmpeg cannot be loaded: \($0)" }
      throw ImagingError(.libraryFailure, reason ?? "out of memory for a libswscale converter")
    }
    if width == source.width, height == source.height, width < 2 || height < 2 {
      // Too small for libswscale; a plain loop does it.
      if let color { try ImageConversion.yuv420pToRGB8(source, into: color) }
      try ImageConversion.yuv420pToGray8(source, into: gray)
      return
    }
    color?.reshape(width: width, height: height, format: .rgb8)
    gray.reshape(width: width, height: height, format: .gray8)
    let status = message.withUnsafeMutableBufferPointer { text in
      wb_pixel_convert_yuv420p(
        converter, source.pixels, Int32(source.width), Int32(source.height), color?.pixels, gray.pixels,
        Int32(width), Int32(height), text.baseAddress, text.count)
    }
    guard status == 0 else {
      throw ImagingError(.libraryFailure, message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }
  }
}
