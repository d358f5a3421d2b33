/// How the bytes of an image are laid out.
public enum PixelFormat: Sendable, Equatable, CustomStringConvertible {
  /// One byte per pixel (luma).
  case gray8
  /// Three bytes per pixel, R G B.
  case rgb8
  /// Planar YUV 4:2:0: a full-size Y plane, then U and V planes of half width and half height.
  case yuv420p

  public var description: String {
    switch self {
    case .gray8: return "gray8"
    case .rgb8: return "rgb8"
    case .yuv420p: return "yuv420p"
    }
  }

  /// Bytes per pixel of the first (or only) plane.
  public var bytesPerPixel: Int { self == .rgb8 ? 3 : 1 }

  /// Bytes of a whole image of this size with tightly packed rows.
  public func byteCount(width: Int, height: Int) -> Int {
    switch self {
    case .gray8: return width * height
    case .rgb8: return width * height * 3
    case .yuv420p: return width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)
    }
  }
}

/// Pixels in memory that is allocated once and reused frame after frame:
/// `reshape` only reallocates when the image grows past the capacity, so a
/// steady stream of same-size frames does not allocate.
/// Rows are tightly packed (row bytes = width × bytes per pixel). The
/// memory runs `slack` bytes past the capacity, for SIMD code (libswscale)
/// that reads or writes a row's end in whole vectors.
public final class ImageBuffer {
  public static let slack = 64
  public private(set) var width: Int = 0
  public private(set) var height: Int = 0
  public private(set) var format: PixelFormat
  public private(set) var pixels: UnsafeMutablePointer<UInt8>
  /// Bytes allocated; stays the same while frames fit, which is how callers
  /// (and tests) can tell that a frame did not reallocate.
  public private(set) var capacity: Int
  /// The same picture at exactly half the width and height (yuv420p, each
  /// sample the rounded mean of its 2×2 block), when its source made one
  /// while the frame's rows were still in cache, for estimators that read
  /// the frame at half size: at 1080p, halving it afterwards read 3 MB back
  /// from memory. Nil otherwise. True only of the pixels as the source gave
  /// them: `reshape` drops it, `copy` does not carry it, and code that
  /// changes `pixels` in place calls `dropHalfSize()`.
  public private(set) var halfSize: ImageBuffer?
  private var halfSizeMemory: ImageBuffer?

  public init(width: Int = 0, height: Int = 0, format: PixelFormat) {
    self.format = format
    capacity = max(1, format.byteCount(width: width, height: height))
    pixels = .allocate(capacity: capacity + ImageBuffer.slack)
    pixels.initialize(repeating: 0, count: capacity + ImageBuffer.slack)
    self.width = width
    self.height = height
  }

  deinit { pixels.deallocate() }

  public var rowBytes: Int { width * format.bytesPerPixel }
  public var byteCount: Int { format.byteCount(width: width, height: height) }

  /// Changes size and format, keeping the memory when it is big enough.
  /// The pixel values are undefined afterwards.
  public func reshape(width: Int, height: Int, format: PixelFormat) {
    let needed = max(1, format.byteCount(width: width, height: height))
    if needed > capacity {
      pixels.deallocate()
      capacity = needed
      pixels = .allocate(capacity: capacity + ImageBuffer.slack)
      pixels.initialize(repeating: 0, count: capacity + ImageBuffer.slack)
    }
    self.width = width
    self.height = height
    self.format = format
    halfSize = nil
  }

  /// Memory for this frame's half-size copy (a yuv420p frame whose sides
  /// are even), shaped for it and kept from frame to frame; a source fills
  /// it and calls `keepHalfSize()`.
  public func halfSizeBuffer() -> ImageBuffer {
    let memory = halfSizeMemory ?? ImageBuffer(format: .yuv420p)
    halfSizeMemory = memory
    memory.reshape(width: width / 2, height: height / 2, format: .yuv420p)
    return memory
  }

  /// Makes what `halfSizeBuffer()` holds this frame's `halfSize`.
  public func keepHalfSize() { halfSize = halfSizeMemory }

  /// Says the half-size copy is no longer this frame's (its pixels changed).
  public func dropHalfSize() { halfSize = nil }

  /// The pixel bytes (all planes).
  public var bytes: UnsafeMutableBufferPointer<UInt8> { UnsafeMutableBufferPointer(start: pixels, count: byteCount) }

  public subscript(x: Int, y: Int) -> UInt8 {
    get { pixels[y * rowBytes + x * format.bytesPerPixel] }
    set { pixels[y * rowBytes + x * format.bytesPerPixel] = newValue }
  }

  /// A copy that owns its own memory (for keeping a frame past the next one).
  public func copy() -> ImageBuffer {
    let copy = ImageBuffer(width: width, height: height, format: format)
    copy.pixels.update(from: pixels, count: byteCount)
    return copy
  }
}
