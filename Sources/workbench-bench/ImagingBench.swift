// Measures JPEG decoding and encoding and the image conversions, per frame,
// at the camera sizes the flows expect. The frames are made at run time from
// a real fixture frame (resized, then encoded at quality 90), so no large
// files live in the repository. Upscaling smooths the frames, which makes
// them cheap to decode; the "noisy" row adds sensor-like noise first, closer
// to what a real camera's frame costs.
import Capture
import Foundation
import Imaging

#if canImport(Glibc)
  import Glibc
#endif

private let imagingRuns = Int(ProcessInfo.processInfo.environment["BENCH_RUNS"] ?? "") ?? 5
private let imagingIterations = max(
  200, Int(ProcessInfo.processInfo.environment["BENCH_IMAGING_ITERATIONS"] ?? "") ?? 200)
private let fixtureRelativePath = "Tests/Fixtures/frames/0001.jpg"

private struct ImagingBenchError: Error, CustomStringConvertible {
  var description: String
}

private func elapsedNanoseconds() -> UInt64 {
  var spec = timespec()
  clock_gettime(CLOCK_MONOTONIC, &spec)
  return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

/// The fixture frame, looked up from this source file's place in the
/// package, then from the executable's folder (.build/<config>/) and the
/// working directory upwards, so the bench runs from anywhere in a checkout.
private func readFixtureFrame() throws -> [UInt8] {
  var starts = [URL(fileURLWithPath: #filePath).deletingLastPathComponent()]
  if let executable = Bundle.main.executableURL { starts.append(executable.deletingLastPathComponent()) }
  starts.append(URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
  for start in starts {
    var folder = start.standardizedFileURL
    while folder.path != "/" {
      let candidate = folder.appendingPathComponent(fixtureRelativePath).path
      if let data = FileManager.default.contents(atPath: candidate) { return [UInt8](data) }
      folder = folder.deletingLastPathComponent()
    }
  }
  throw ImagingBenchError(description: "cannot find \(fixtureRelativePath); run the bench from the package")
}

/// Milliseconds per call: the median over runs of each run's mean. The call
/// runs once first so that buffers have grown before timing starts.
private func millisecondsPerCall(_ body: () throws -> Void) rethrows -> Double {
  try body()
  var perRun: [Double] = []
  for _ in 0..<imagingRuns {
    let start = elapsedNanoseconds()
    for _ in 0..<imagingIterations { try body() }
    perRun.append(Double(elapsedNanoseconds() - start) / Double(imagingIterations) / 1_000_000)
  }
  return perRun.sorted()[perRun.count / 2]
}

private struct ImagingCase {
  var name: String
  var run: () throws -> Void
}

/// A yuv420p frame of the size of `gray` whose luma is `gray` and whose
/// chroma varies over the frame (conversion cost does not depend on hue).
private func makeYUVFrame(from gray: ImageBuffer) throws -> ImageBuffer {
  let chromaWidth = (gray.width + 1) / 2
  let chromaHeight = (gray.height + 1) / 2
  let chroma = ImageBuffer(format: .gray8)
  try ImageConversion.resize(gray, width: chromaWidth, height: chromaHeight, into: chroma)
  let yuv = ImageBuffer(width: gray.width, height: gray.height, format: .yuv420p)
  let lumaCount = gray.width * gray.height
  let chromaCount = chromaWidth * chromaHeight
  yuv.pixels.update(from: gray.pixels, count: lumaCount)
  for index in 0..<chromaCount {
    yuv.pixels[lumaCount + index] = chroma.pixels[index]
    yuv.pixels[lumaCount + chromaCount + index] = 255 - chroma.pixels[index]
  }
  return yuv
}

/// `image` with deterministic noise of up to ±12 levels on every sample.
private func addingNoise(to image: ImageBuffer) -> ImageBuffer {
  let noisy = image.copy()
  var state: UInt32 = 0x9E37_79B9
  for index in 0..<noisy.byteCount {
    state ^= state << 13
    state ^= state >> 17
    state ^= state << 5
    let offset = Int(state % 25) - 12
    noisy.pixels[index] = UInt8(clamping: Int(noisy.pixels[index]) + offset)
  }
  return noisy
}

/// Decode, encode and conversion cost per frame at 640×480 and 1280×720.
func runImagingBenchmarks() throws {
  let decoder = JPEGDecoder()
  let encoder = JPEGEncoder()
  let fixture = ImageBuffer(format: .rgb8)
  try decoder.decode(try readFixtureFrame(), into: fixture, format: .rgb8)

  print(
    "workbench imaging cost: ms per frame, median of \(imagingRuns) runs of \(imagingIterations) calls, one core;"
      + " frames resized from \(fixtureRelativePath), JPEG quality 90, 4:2:0")
  print("case                                     size       ms/frame  vs baseline")
  var largeFrameDecode = (smooth: 0.0, noisy: 0.0)
  let videoConverter = VideoFrameConverter()
  for (width, height) in [(640, 480), (1280, 720), (1920, 1080)] {
    let rgb = ImageBuffer(format: .rgb8)
    try ImageConversion.resize(fixture, width: width, height: height, into: rgb)
    let gray = ImageBuffer(format: .gray8)
    try ImageConversion.rgb8ToGray8(rgb, into: gray)
    let yuv = try makeYUVFrame(from: gray)
    let jpeg = try encoder.encode(rgb, quality: 90)
    let noisyJPEG = try encoder.encode(addingNoise(to: rgb), quality: 90)
    let rgbOut = ImageBuffer(format: .rgb8)
    let grayOut = ImageBuffer(format: .gray8)
    var encoded: [UInt8] = []

    var cases = [
      ImagingCase(name: "decode rgb full accurate") {
        try decoder.decode(jpeg, into: rgbOut, format: .rgb8)
      },
      ImagingCase(name: "decode rgb full accurate, noisy frame") {
        try decoder.decode(noisyJPEG, into: rgbOut, format: .rgb8)
      },
      ImagingCase(name: "decode gray full accurate, noisy frame") {
        try decoder.decode(noisyJPEG, into: grayOut, format: .gray8)
      },
    ]
    for format in [PixelFormat.rgb8, .gray8] {
      let output = format == .rgb8 ? rgbOut : grayOut
      let formatName = format == .rgb8 ? "rgb" : "gray"
      for scale in [JPEGScale.full, .half, .quarter] {
        for fast in [false, true] where !(format == .rgb8 && scale == .full && !fast) {
          let scaleName = scale == .full ? "full" : "1/\(scale.denominator)"
          cases.append(
            ImagingCase(name: "decode \(formatName) \(scaleName) \(fast ? "fast" : "accurate")") {
              try decoder.decode(jpeg, into: output, format: format, scale: scale, fast: fast)
            })
        }
      }
    }
    cases += [
      ImagingCase(name: "encode rgb q90") { try encoder.encode(rgb, quality: 90, into: &encoded) },
      ImagingCase(name: "encode gray q90") { try encoder.encode(gray, quality: 90, into: &encoded) },
      ImagingCase(name: "encode yuv420p q90") { try encoder.encode(yuv, quality: 90, into: &encoded) },
      ImagingCase(name: "yuv420p → gray8") { try ImageConversion.yuv420pToGray8(yuv, into: grayOut) },
      ImagingCase(name: "yuv420p → rgb8") { try ImageConversion.yuv420pToRGB8(yuv, into: rgbOut) },
      ImagingCase(name: "yuv420p → rgb8 + gray8, swscale") {
        try videoConverter.convert(yuv, width: width, height: height, color: rgbOut, gray: grayOut)
      },
      ImagingCase(name: "yuv420p → rgb8 + gray8 at 1/2, swscale") {
        try videoConverter.convert(yuv, width: width / 2, height: height / 2, color: rgbOut, gray: grayOut)
      },
      ImagingCase(name: "rgb8 → gray8") { try ImageConversion.rgb8ToGray8(rgb, into: grayOut) },
      ImagingCase(name: "crop rgb centre half") {
        try ImageConversion.crop(rgb, x: width / 4, y: height / 4, width: width / 2, height: height / 2, into: rgbOut)
      },
      ImagingCase(name: "resize gray to 1/2 (area)") {
        try ImageConversion.resize(gray, width: width / 2, height: height / 2, into: grayOut)
      },
      ImagingCase(name: "resize gray to 2/3 (area)") {
        try ImageConversion.resize(gray, width: width * 2 / 3, height: height * 2 / 3, into: grayOut)
      },
      ImagingCase(name: "resize rgb to 1/2 (area)") {
        try ImageConversion.resize(rgb, width: width / 2, height: height / 2, into: rgbOut)
      },
      ImagingCase(name: "resize gray ×1.5 (bilinear)") {
        try ImageConversion.resize(gray, width: width * 3 / 2, height: height * 3 / 2, into: grayOut)
      },
    ]

    var baseline = 0.0
    for (index, benchCase) in cases.enumerated() {
      let milliseconds = try millisecondsPerCall(benchCase.run)
      if index == 0 { baseline = milliseconds }
      if width == 1280 && index == 0 { largeFrameDecode.smooth = milliseconds }
      if width == 1280 && index == 1 { largeFrameDecode.noisy = milliseconds }
      let name = index == 0 ? benchCase.name + " (baseline)" : benchCase.name
      print(
        name.padding(toLength: 40, withPad: " ", startingAt: 0) + " "
          + "\(width)×\(height)".padding(toLength: 9, withPad: " ", startingAt: 0)
          + String(format: " %9.3f  %10.2fx", milliseconds, milliseconds / baseline))
    }
    print("  (as JPEG the \(width)×\(height) frame is \(jpeg.count / 1024) KiB, noisy \(noisyJPEG.count / 1024) KiB)")
  }
  let worst = max(largeFrameDecode.smooth, largeFrameDecode.noisy)
  print(
    String(
      format: "target: decode 1280×720 rgb ≤ 4 ms: %.3f ms (smooth), %.3f ms (noisy): %@", largeFrameDecode.smooth,
      largeFrameDecode.noisy, worst <= 4 ? "met" : "NOT met"))
}
