import CFFmpeg
import Capture
import Foundation
import Imaging
import TestSupport
import Testing

@Suite("Video frames to RGB and luma through libswscale")
struct VideoFrameConverterTests {
  /// A real photo as full-range 4:2:0 planes (JPEG's BT.601 equations; each
  /// chroma sample the mean of its 2×2 block), cut to `width` × `height`.
  static func planes(width: Int, height: Int) throws -> ImageBuffer {
    let path = packageRoot() + "/Tests/Fixtures/frames/obama-480.jpg"
    let photo = ImageBuffer(format: .rgb8)
    try JPEGDecoder().decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), into: photo, format: .rgb8)
    let yuv = ImageBuffer(width: width, height: height, format: .yuv420p)
    func rgb(_ x: Int, _ y: Int) -> (Double, Double, Double) {
      let p = photo.pixels + (min(y, photo.height - 1) * photo.width + min(x, photo.width - 1)) * 3
      return (Double(p[0]), Double(p[1]), Double(p[2]))
    }
    func byte(_ value: Double) -> UInt8 { UInt8(max(0, min(255, value.rounded()))) }
    for y in 0..<height {
      for x in 0..<width {
        let (r, g, b) = rgb(x, y)
        yuv.pixels[y * width + x] = byte(0.299 * r + 0.587 * g + 0.114 * b)
      }
    }
    let chromaWidth = (width + 1) / 2
    let chromaHeight = (height + 1) / 2
    let blue = yuv.pixels + width * height
    let red = blue + chromaWidth * chromaHeight
    for cy in 0..<chromaHeight {
      for cx in 0..<chromaWidth {
        var (cb, cr) = (0.0, 0.0)
        for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
          let (r, g, b) = rgb(min(2 * cx + dx, width - 1), min(2 * cy + dy, height - 1))
          cb += 128 - 0.168736 * r - 0.331264 * g + 0.5 * b
          cr += 128 + 0.5 * r - 0.418688 * g - 0.081312 * b
        }
        blue[cy * chromaWidth + cx] = byte(cb / 4)
        red[cy * chromaWidth + cx] = byte(cr / 4)
      }
    }
    return yuv
  }

  /// The largest and the mean absolute difference of two images' bytes.
  static func difference(_ a: ImageBuffer, _ b: ImageBuffer) -> (largest: Int, mean: Double) {
    var largest = 0
    var total = 0
    for index in 0..<a.byteCount {
      let d = abs(Int(a.pixels[index]) - Int(b.pixels[index]))
      largest = max(largest, d)
      total += d
    }
    return (largest, Double(total) / Double(a.byteCount))
  }

  @Test(
    "at full size: the colours of the reference conversion, the luma exactly the Y plane",
    arguments: [(480, 480), (656, 362), (656, 361), (648, 361), (641, 362), (15, 3), (2, 2)])
  func fullSize(width: Int, height: Int) throws {
    let yuv = try Self.planes(width: width, height: height)
    let reference = ImageBuffer(format: .rgb8)
    try ImageConversion.yuv420pToRGB8(yuv, into: reference)
    let color = ImageBuffer(format: .rgb8)
    let gray = ImageBuffer(format: .gray8)
    try VideoFrameConverter().convert(yuv, width: width, height: height, color: color, gray: gray)
    #expect(color.width == width && color.height == height)
    let (largest, mean) = Self.difference(color, reference)
    // An odd height leaves libswscale's two-row path: its general one interpolates the chroma
    // between rows (up to 28 apart at a colour edge here), where the reference repeats it.
    #expect(largest <= (height.isMultiple(of: 2) ? 3 : 40), "\(width)×\(height): largest difference \(largest)")
    #expect(mean < 1, "\(width)×\(height): mean difference \(mean)")
    #expect(memcmp(gray.pixels, yuv.pixels, width * height) == 0)
  }

  @Test("scaled to half: the size asked for, and the picture's content kept")
  func half() throws {
    let yuv = try Self.planes(width: 480, height: 480)
    let reference = ImageBuffer(format: .rgb8)
    try ImageConversion.yuv420pToRGB8(yuv, into: reference)
    let halfReference = ImageBuffer(width: 240, height: 240, format: .rgb8)
    for y in 0..<240 {
      for x in 0..<240 {
        for c in 0..<3 {
          var sum = 0
          for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            sum += Int(reference.pixels[((2 * y + dy) * 480 + 2 * x + dx) * 3 + c])
          }
          halfReference.pixels[(y * 240 + x) * 3 + c] = UInt8(sum / 4)
        }
      }
    }
    let converter = VideoFrameConverter()
    let color = ImageBuffer(format: .rgb8)
    let gray = ImageBuffer(format: .gray8)
    for _ in 0..<2 {
      try converter.convert(yuv, width: 240, height: 240, color: color, gray: gray)
      #expect(color.width == 240 && gray.width == 240 && gray.height == 240)
      let (_, mean) = Self.difference(color, halfReference)
      #expect(mean < 3, "mean difference \(mean) against a 2×2 box average")
    }
    // An odd size scales too.
    let odd = try Self.planes(width: 641, height: 361)
    try converter.convert(odd, width: 321, height: 181, color: color, gray: gray)
    #expect(color.width == 321 && color.height == 181 && gray.width == 321)
    // Without colour, the luma alone.
    try converter.convert(yuv, width: 120, height: 120, color: nil, gray: gray)
    #expect(gray.width == 120)
  }

  @Test(
    "halved exactly: each plane the rounded mean of its 2×2 blocks, as libswscale's area filter gives",
    arguments: [(480, 480), (1280, 720), (648, 364)])
  func halvedExactly(width: Int, height: Int) throws {
    let yuv = try Self.planes(width: width, height: height)
    let (halfWidth, halfHeight) = (width / 2, height / 2)
    let gray = ImageBuffer(format: .gray8)
    let color = ImageBuffer(format: .rgb8)
    try VideoFrameConverter().convert(yuv, width: halfWidth, height: halfHeight, color: color, gray: gray)
    var mismatches = 0
    for y in 0..<halfHeight {
      for x in 0..<halfWidth {
        var sum = 2
        for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] { sum += Int(yuv.pixels[(2 * y + dy) * width + 2 * x + dx]) }
        if gray.pixels[y * halfWidth + x] != UInt8(sum >> 2) { mismatches += 1 }
      }
    }
    #expect(mismatches == 0, "\(width)×\(height): \(mismatches) luma samples differ from the rounded 2×2 mean")
    // The colour comes from the halved chroma too: the mean of the full-size conversion, within
    // what converting after averaging instead of before changes.
    let reference = ImageBuffer(format: .rgb8)
    try ImageConversion.yuv420pToRGB8(yuv, into: reference)
    var total = 0
    for y in 0..<halfHeight {
      for x in 0..<halfWidth {
        for c in 0..<3 {
          var sum = 0
          for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            sum += Int(reference.pixels[((2 * y + dy) * width + 2 * x + dx) * 3 + c])
          }
          total += abs(Int(color.pixels[(y * halfWidth + x) * 3 + c]) - sum / 4)
        }
      }
    }
    let mean = Double(total) / Double(halfWidth * halfHeight * 3)
    #expect(mean < 3, "\(width)×\(height): mean colour difference \(mean)")
  }

  @Test("a limited-range row expands to the fixed-point formula's bytes, vector body and scalar tail alike")
  func rangeExpansion() {
    // Every value at every alignment, in rows that end inside, on and past a vector's 16 bytes.
    let source = (0..<(256 + 48)).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) }
    var destination = [UInt8](repeating: 0, count: source.count)
    var mismatches: [String] = []
    for chroma in [false, true] {
      let (offset, scale, base) = chroma ? (128, 9326, 128) : (16, 9539, 0)
      for start in 0..<17 {
        for count in [0, 1, 15, 16, 17, 31, 32, 33, 255, 256, 287] {
          source.withUnsafeBufferPointer { from in
            destination.withUnsafeMutableBufferPointer { to in
              wb_video_expand_range(from.baseAddress! + start, to.baseAddress!, Int32(count), chroma ? 1 : 0)
            }
          }
          for x in 0..<count {
            let expected = min(255, max(0, ((Int(source[start + x]) - offset) * scale + 4096) >> 13 + base))
            if Int(destination[x]) != expected {
              mismatches.append("\(chroma ? "chroma" : "luma") \(source[start + x]) at \(start)+\(x) of \(count)")
            }
          }
        }
      }
    }
    #expect(mismatches.isEmpty, "\(mismatches.count) samples differ, first \(mismatches.prefix(3))")
  }

  @Test("what is not yuv420p is an error, not a crash")
  func wrongFormat() throws {
    let error = try #require(throws: ImagingError.self) {
      try VideoFrameConverter().convert(
        ImageBuffer(width: 4, height: 4, format: .rgb8), width: 4, height: 4, color: nil,
        gray: ImageBuffer(format: .gray8))
    }
    #expect(error.kind == .unsupported)
  }
}
