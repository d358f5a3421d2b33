/// The one rule for the size of a picture workbench reads, whatever brings
/// it (a JPEG frame, a video frame through FFmpeg, a photo): 1 to 8192
/// pixels a side and at most 33,177,600 pixels (8K UHD, 7680×4320). `probe`
/// and `run` both ask it, so a file probe calls readable is one run reads.
/// (The FFmpeg shim repeats the numbers in C: WB_VIDEO_MAXIMUM_SIDE and
/// WB_VIDEO_MAXIMUM_PIXELS, held equal by a test.)
public enum FrameSize {
  public static let maximumSide = 8192
  public static let maximumPixelCount = 7680 * 4320

  /// Whether a picture of this size is read.
  public static func isRead(width: Int, height: Int) -> Bool {
    (1...maximumSide).contains(width) && (1...maximumSide).contains(height) && width * height <= maximumPixelCount
  }

  /// "W×H pixels, more than workbench reads (…)" for a size that is not
  /// read, to follow "the JPEG is" or "the PNG is"; nil for one that is.
  public static func problem(width: Int, height: Int) -> String? {
    guard !isRead(width: width, height: height) else { return nil }
    return "\(width)×\(height) pixels, more than workbench reads (1 to \(maximumSide) pixels a side, "
      + "at most \(maximumPixelCount) pixels: 7680×4320)"
  }
}
