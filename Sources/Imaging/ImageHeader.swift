/// The size a PNG or BMP file declares in its header, read before anything
/// is decoded: a small file can declare a picture of gigabytes (a 20000×20000
/// PNG of one colour compresses to about a megabyte), and the decoder would
/// take that memory before finding the picture is too big.
public struct ImageHeader: Sendable, Equatable {
  public var format: String
  public var width: Int
  public var height: Int

  /// The most pixels a still picture may have, as for video frames (FrameSize).
  public static let maximumPixelCount = FrameSize.maximumPixelCount

  public init(format: String, width: Int, height: Int) {
    self.format = format
    self.width = width
    self.height = height
  }

  /// The header of a PNG (its IHDR chunk) or a BMP (its info header); nil
  /// for anything else, or a header cut short.
  public init?(_ bytes: [UInt8]) {
    if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
      // The signature, then the first chunk, which must be IHDR: length, type, width, height (big-endian).
      guard bytes.count >= 24, bytes[12..<16].elementsEqual("IHDR".utf8) else { return nil }
      self.init(format: "PNG", width: Self.bigEndian(bytes, at: 16), height: Self.bigEndian(bytes, at: 20))
      return
    }
    if bytes.starts(with: Array("BM".utf8)) {
      // BITMAPINFOHEADER and its successors: width and height as signed little-endian 32-bit numbers
      // (a negative height is a top-down picture); the old 12-byte BITMAPCOREHEADER has 16-bit ones.
      guard bytes.count >= 18 else { return nil }
      let infoSize = Self.littleEndian(bytes, at: 14)
      guard bytes.count >= (infoSize == 12 ? 22 : 26) else { return nil }
      if infoSize == 12 {
        let width = Int(bytes[18]) | Int(bytes[19]) << 8
        let height = Int(bytes[20]) | Int(bytes[21]) << 8
        self.init(format: "BMP", width: width, height: height)
        return
      }
      let width = Int(Int32(bitPattern: UInt32(Self.littleEndian(bytes, at: 18))))
      let height = Int(Int32(bitPattern: UInt32(Self.littleEndian(bytes, at: 22))))
      self.init(format: "BMP", width: abs(width), height: abs(height))
      return
    }
    return nil
  }

  /// Saturates: a PNG may declare 2³²−1 a side, whose product a 64-bit Int does not hold.
  /// (FrameSize checks the sides first, so it never multiplies such sizes.)
  public var pixelCount: Int {
    let (product, overflow) = width.multipliedReportingOverflow(by: height)
    return overflow ? .max : product
  }

  /// Why the picture is refused before decoding, or nil when its size is one workbench reads.
  public var sizeProblem: String? {
    FrameSize.problem(width: width, height: height).map { "the \(format) is " + $0 }
  }

  private static func bigEndian(_ bytes: [UInt8], at offset: Int) -> Int {
    bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
  }

  private static func littleEndian(_ bytes: [UInt8], at offset: Int) -> Int {
    bytes[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | Int($1) }
  }
}
