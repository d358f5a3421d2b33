import Estimators
import Foundation
import Imaging

#if canImport(Glibc)
  import Glibc
#endif

/// The real photos of the test fixtures, decoded to gray.
func fixturePhotos() throws -> [(name: String, gray: ImageBuffer)] {
  let folder = benchPackageRoot() + "/Tests/Fixtures/frames"
  let decoder = JPEGDecoder()
  return try FileManager.default.contentsOfDirectory(atPath: folder).sorted().filter { $0.hasSuffix(".jpg") }.map {
    name in
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
    let gray = ImageBuffer(format: .gray8)
    try decoder.decode(bytes, into: gray, format: .gray8)
    return (name, gray)
  }
}

/// The package root: above the executable's .build folder.
func benchPackageRoot() -> String {
  var url = URL(
    fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
      ?? CommandLine.arguments[0])
  while url.path != "/" {
    url.deleteLastPathComponent()
    if FileManager.default.fileExists(atPath: url.path + "/Package.swift") { return url.path }
  }
  return FileManager.default.currentDirectoryPath
}

/// How well each quality score separates real photos from degraded copies,
/// and what each costs per frame.
func runQualityBenchmarks() throws {
  let photos = try fixturePhotos()
  let (rows, summaries) = QualityValidation.run(images: photos)
  print("quality scores on \(photos.count) real photos, untouched and degraded (1 = best; fails below the threshold)")
  let kinds = QualityKind.allCases
  print(
    "image".padding(toLength: 20, withPad: " ", startingAt: 0)
      + "degradation".padding(toLength: 20, withPad: " ", startingAt: 0)
      + kinds.map { $0.rawValue.padding(toLength: 13, withPad: " ", startingAt: 0) }.joined())
  for row in rows {
    let cells = kinds.map { kind -> String in
      let score = String(format: "%.3f", row.scores[kind] ?? 0)
      let mark = (row.scores[kind] ?? 0) < (QualityValidation.defaultThresholds[kind] ?? 0) ? "✗" : " "
      return (score + mark).padding(toLength: 13, withPad: " ", startingAt: 0)
    }
    print(
      row.image.padding(toLength: 20, withPad: " ", startingAt: 0)
        + (row.degradation ?? "-").padding(toLength: 20, withPad: " ", startingAt: 0) + cells.joined())
  }
  print()
  print("check         threshold  good passed  degraded rejected  lowest good  highest degraded")
  for summary in summaries {
    print(
      summary.kind.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0)
        + String(
          format: "%9.2f  %6d/%-4d  %10d/%-6d  %11.3f  %16.3f", summary.threshold, summary.goodPassed, summary.good,
          summary.badRejected, summary.bad, summary.lowestGood, summary.highestBad))
  }
}
