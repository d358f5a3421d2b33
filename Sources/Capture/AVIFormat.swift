/// Byte-level pieces of the RIFF AVI format shared by the reader and the writer.
enum AVIFormat {
  /// avih dwFlags: the file has an idx1 index.
  static let hasIndexFlag: UInt32 = 0x10
  /// avih dwFlags: chunks are interleaved (always true with one stream).
  static let isInterleavedFlag: UInt32 = 0x100
  /// idx1 dwFlags: the chunk is a key frame (every Motion JPEG frame is).
  static let keyFrameFlag: UInt32 = 0x10

  /// The Motion JPEG codec names seen in strh fccHandler and strf
  /// biCompression; they all mean one JPEG image per chunk.
  static let motionJPEGCodecs: Set<String> = ["MJPG", "JPEG", "AVRN", "DMB1"]

  /// The four ASCII bytes of a chunk id.
  static func fourCC(_ text: String) -> [UInt8] {
    let bytes = Array(text.utf8)
    precondition(bytes.count == 4, "a FOURCC has four characters")
    return bytes
  }

  /// A FOURCC as text, for messages; unprintable bytes as `?`.
  static func text(_ bytes: ArraySlice<UInt8>) -> String {
    String(decoding: bytes.map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
  }

  static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
    guard offset >= 0, offset + 4 <= bytes.count else { return 0 }
    return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
      | UInt32(bytes[offset + 3]) << 24
  }

  static func int32(_ bytes: [UInt8], at offset: Int) -> Int32 { Int32(bitPattern: uint32(bytes, at: offset)) }

  static func append(_ value: UInt32, to bytes: inout [UInt8]) {
    bytes.append(UInt8(truncatingIfNeeded: value))
    bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    bytes.append(UInt8(truncatingIfNeeded: value >> 16))
    bytes.append(UInt8(truncatingIfNeeded: value >> 24))
  }

  static func append(_ value: UInt16, to bytes: inout [UInt8]) {
    bytes.append(UInt8(truncatingIfNeeded: value))
    bytes.append(UInt8(truncatingIfNeeded: value >> 8))
  }

  static func set(_ value: UInt32, in bytes: inout [UInt8], at offset: Int) {
    bytes[offset] = UInt8(truncatingIfNeeded: value)
    bytes[offset + 1] = UInt8(truncatingIfNeeded: value >> 8)
    bytes[offset + 2] = UInt8(truncatingIfNeeded: value >> 16)
    bytes[offset + 3] = UInt8(truncatingIfNeeded: value >> 24)
  }

  /// The ids of a stream's video chunks: `00dc` (compressed) and `00db`
  /// (uncompressed, but some writers use it for Motion JPEG too).
  static func videoChunkIDs(stream: Int) -> [[UInt8]] {
    let number = max(0, min(99, stream))
    let digits = Array((number < 10 ? "0\(number)" : "\(number)").utf8)
    return [digits + Array("dc".utf8), digits + Array("db".utf8)]
  }
}
