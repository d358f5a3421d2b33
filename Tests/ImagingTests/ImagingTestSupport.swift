import Foundation
import Imaging
import TestSupport

/// The bytes of a frame in Tests/Fixtures/frames (640×360, 4:2:0).
func fixtureFrame(_ name: String = "0001.jpg") throws -> [UInt8] {
  let path = packageRootPath + "/Tests/Fixtures/frames/" + name
  guard let data = FileManager.default.contents(atPath: path) else {
    throw FixtureMissing(path: path)
  }
  return [UInt8](data)
}

struct FixtureMissing: Error, CustomStringConvertible {
  var path: String
  var description: String { "missing fixture \(path)" }
}

/// A small image from literal bytes (all planes, tightly packed).
func image(_ format: PixelFormat, width: Int, height: Int, _ bytes: [UInt8]) -> ImageBuffer {
  precondition(bytes.count == format.byteCount(width: width, height: height), "wrong byte count for the test image")
  let buffer = ImageBuffer(width: width, height: height, format: format)
  buffer.pixels.update(from: bytes, count: bytes.count)
  return buffer
}

extension ImageBuffer {
  var byteArray: [UInt8] { Array(bytes) }

  /// Mean of every byte: brightness for gray, the mean over channels for RGB.
  var meanValue: Double {
    guard byteCount > 0 else { return 0 }
    return Double(bytes.reduce(0) { $0 + Int($1) }) / Double(byteCount)
  }

  var standardDeviation: Double {
    let mean = meanValue
    let squares = bytes.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) }
    return (squares / Double(max(1, byteCount))).squareRoot()
  }
}

/// Peak signal-to-noise ratio in dB between two images of the same size and format.
func peakSignalToNoiseRatio(_ a: ImageBuffer, _ b: ImageBuffer) -> Double {
  precondition(a.width == b.width && a.height == b.height && a.format == b.format, "images differ in shape")
  var squaredError = 0.0
  for index in 0..<a.byteCount {
    let difference = Double(a.pixels[index]) - Double(b.pixels[index])
    squaredError += difference * difference
  }
  let meanSquaredError = squaredError / Double(a.byteCount)
  return meanSquaredError == 0 ? .infinity : 10 * log10(255 * 255 / meanSquaredError)
}

/// Deterministic bytes for "random" inputs, so a failure reproduces.
struct SeededBytes {
  private var state: UInt64

  init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }

  mutating func next() -> UInt8 {
    state ^= state << 13
    state ^= state >> 7
    state ^= state << 17
    return UInt8(truncatingIfNeeded: state >> 24)
  }

  mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in next() } }
}
