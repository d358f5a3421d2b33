import Estimators
import Foundation
import Imaging
import TestSupport
import Testing

@Suite("Quality scores on real photos")
struct QualityValidationTests {
  /// Every JPEG of the fixtures, decoded to gray.
  static func photos() throws -> [(name: String, gray: ImageBuffer)] {
    let folder = packageRootPath + "/Tests/Fixtures/frames"
    let decoder = JPEGDecoder()
    return try FileManager.default.contentsOfDirectory(atPath: folder).sorted().filter { $0.hasSuffix(".jpg") }.map {
      name in
      let gray = ImageBuffer(format: .gray8)
      try decoder.decode(
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))), into: gray, format: .gray8)
      return (name, gray)
    }
  }

  @Test("at the default thresholds every untouched photo passes and every degraded copy fails its check")
  func separation() throws {
    let photos = try Self.photos()
    #expect(photos.count >= 8)
    let (rows, summaries) = QualityValidation.run(images: photos)
    for summary in summaries {
      #expect(summary.goodPassed == summary.good, "\(summary.kind): good photos failing: \(summary.lowestGood)")
      #expect(summary.badRejected == summary.bad, "\(summary.kind): degraded photos passing: \(summary.highestBad)")
    }
    // An untouched photo passes all five checks at once.
    for row in rows where row.degradation == nil {
      for kind in QualityKind.allCases {
        #expect((row.scores[kind] ?? 0) >= QualityValidation.defaultThresholds[kind]!, "\(row.image) \(kind)")
      }
    }
  }
}
