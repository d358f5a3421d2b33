/// Finds where JPEG images begin and end by walking their markers, without
/// decoding: header segments are skipped by their lengths and entropy-coded
/// data is scanned for the next real marker (not a stuffed 0xFF00 or a
/// restart marker). This is how MJPEG streams are split into frames and how
/// a frame from any container is checked to be whole before it is handed on.
enum MJPEGMarkers {
  /// What walking one image from its start of image marker found.
  enum Scan: Equatable {
    /// A whole image: its end of image marker ends just before `end`.
    case complete(end: Int)
    /// The bytes ran out before the image ended: more data may complete it.
    case needsMoreData
    /// The image is broken; the reason is for the user.
    case broken(reason: String)
  }

  /// Start of image, followed by the first byte of the next marker: three
  /// bytes that are very unlikely to appear by chance in garbage.
  static let startOfImage: [UInt8] = [0xFF, 0xD8, 0xFF]

  /// The first start of image at or after `start` and before `end`.
  static func findStartOfImage(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int? {
    var position = start
    while position + 2 < end {
      if bytes[position] == 0xFF, bytes[position + 1] == 0xD8, bytes[position + 2] == 0xFF { return position }
      position += 1
    }
    return nil
  }

  /// Walks the image whose start of image marker is at `start`, looking no
  /// further than `end`.
  static func scan(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Scan {
    guard start + 2 <= end else { return .needsMoreData }
    guard bytes[start] == 0xFF, bytes[start + 1] == 0xD8 else {
      return .broken(reason: "does not start with a JPEG start of image marker (FFD8)")
    }
    var position = start + 2
    while true {
      guard position < end else { return .needsMoreData }
      guard bytes[position] == 0xFF else {
        return .broken(reason: "expected a JPEG marker at byte \(position - start), found 0x\(hex(bytes[position]))")
      }
      // Any number of 0xFF fill bytes may precede a marker.
      while position < end, bytes[position] == 0xFF { position += 1 }
      guard position < end else { return .needsMoreData }
      let marker = bytes[position]
      position += 1
      switch marker {
      case 0xD9:
        return .complete(end: position)
      case 0xD8:
        return .broken(reason: "a new image starts at byte \(position - 2 - start) before this one ended")
      case 0x00:
        return .broken(reason: "a stuffed 0xFF00 outside image data at byte \(position - 2 - start)")
      case 0x01, 0xD0...0xD7:
        continue  // Markers without a length.
      default:
        guard position + 2 <= end else { return .needsMoreData }
        let length = Int(bytes[position]) << 8 | Int(bytes[position + 1])
        guard length >= 2 else {
          return .broken(reason: "a marker 0xFF\(hex(marker)) with an impossible length \(length)")
        }
        let segmentEnd = position + length
        guard segmentEnd <= end else { return .needsMoreData }
        // APPn and comments may hold whole JPEGs (EXIF thumbnails); other
        // segments never do, so a start of image inside one means this image
        // was cut short and its length now runs into the next image.
        let mayHoldImages = (0xE0...0xEF).contains(marker) || marker == 0xFE
        if !mayHoldImages, findStartOfImage(in: bytes, from: position, to: segmentEnd) != nil {
          return .broken(reason: "cut short inside a 0xFF\(hex(marker)) segment; the next image starts there")
        }
        position = segmentEnd
        if marker == 0xDA {
          switch skipEntropyCodedData(bytes, from: position, to: end) {
          case .some(let next): position = next
          case .none: return .needsMoreData
          }
        }
      }
    }
  }

  /// The position of the first real marker after entropy-coded data, or nil
  /// when the bytes end first.
  private static func skipEntropyCodedData(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int? {
    var position = start
    while position + 1 < end {
      guard bytes[position] == 0xFF else {
        position += 1
        continue
      }
      let next = bytes[position + 1]
      switch next {
      case 0x00, 0xD0...0xD7: position += 2  // Stuffed byte or restart marker: still image data.
      case 0xFF: position += 1  // Fill byte before a marker.
      default: return position
      }
    }
    return nil
  }

  /// Checks that `bytes` hold one whole JPEG image from their first byte.
  /// Bytes after its end of image marker (padding some writers add) are allowed.
  static func check(_ bytes: [UInt8]) -> Scan {
    guard !bytes.isEmpty else { return .broken(reason: "empty: no image data") }
    let scan = bytes.withUnsafeBufferPointer { buffer in Self.scan(buffer, from: 0, to: buffer.count) }
    if scan == .needsMoreData { return .broken(reason: "truncated: the image data ends before its end marker") }
    return scan
  }

  /// The width and height in the image's frame header (SOFn), if it has one
  /// before its image data.
  static func imageSize(of bytes: [UInt8]) -> (width: Int, height: Int)? {
    var position = 2
    guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
    while position + 4 <= bytes.count {
      guard bytes[position] == 0xFF else { return nil }
      let marker = bytes[position + 1]
      if marker == 0xFF {
        position += 1
        continue
      }
      if marker == 0x01 || (0xD0...0xD7).contains(marker) {
        position += 2
        continue
      }
      if marker == 0xD9 || marker == 0xDA { return nil }
      let length = Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
      let isFrameHeader = (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
      if isFrameHeader {
        guard position + 9 <= bytes.count else { return nil }
        let height = Int(bytes[position + 5]) << 8 | Int(bytes[position + 6])
        let width = Int(bytes[position + 7]) << 8 | Int(bytes[position + 8])
        return (width, height)
      }
      position += 2 + length
    }
    return nil
  }

  private static func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
  }
}
