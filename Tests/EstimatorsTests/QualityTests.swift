import Estimators
import Imaging
import Measurements
import Testing

@Suite("Quality scores on synthetic images")
struct QualityTests {
  func image(_ width: Int = 320, _ height: Int = 240, _ value: (Int, Int) -> UInt8) -> ImageBuffer {
    let buffer = ImageBuffer(width: width, height: height, format: .gray8)
    for y in 0..<height { for x in 0..<width { buffer[x, y] = value(x, y) } }
    return buffer
  }

  /// A detailed pattern: checkerboard of 2-pixel cells with mid-grey levels.
  var detailed: ImageBuffer { image { x, y in ((x / 2 + y / 2) % 2 == 0) ? 60 : 190 } }

  @Test("a sharp pattern scores high, a flat image scores 0 for sharpness")
  func sharpness() {
    #expect(QualityEstimator.score(.blur, detailed) > 0.9)
    #expect(QualityEstimator.score(.blur, image { _, _ in 128 }) == 0)
    // A smooth ramp has contrast but no fine detail.
    #expect(QualityEstimator.score(.blur, image { x, _ in UInt8(x * 255 / 320) }) < 0.1)
  }

  @Test("darkness follows the brightest tenth of the pixels; lightness the share blown out")
  func exposure() {
    // A dark frame with a small lit corner (under a tenth): still too dark.
    let dark = image { x, y in x < 40 && y < 40 ? 200 : 40 }
    #expect(abs(QualityEstimator.score(.darkness, dark) - 40.0 / 160) < 0.01)
    #expect(QualityEstimator.score(.lightness, dark) == 1)
    // A dark background with a well-lit quarter (a face): fine.
    let portrait = image { x, _ in x < 240 ? 15 : 180 }
    #expect(QualityEstimator.score(.darkness, portrait) == 1)
    let bright = image { x, _ in x < 80 ? 252 : 120 }  // a quarter blown out
    #expect(abs(QualityEstimator.score(.lightness, bright) - 0.5) < 0.01)
    #expect(QualityEstimator.score(.darkness, bright) == 1)
  }

  @Test("illumination compares the left and right quarters, not top and bottom")
  func illumination() {
    #expect(QualityEstimator.score(.illumination, image { _, _ in 100 }) == 1)
    let sideLit = image { x, _ in x < 160 ? 10 : 200 }
    #expect(QualityEstimator.score(.illumination, sideLit) < 0.01)
    let darkBottom = image { _, y in y < 120 ? 200 : 20 }
    #expect(QualityEstimator.score(.illumination, darkBottom) == 1)
  }

  @Test("specularity falls with the share of saturated highlights")
  func specularity() {
    #expect(QualityEstimator.score(.specularity, detailed) == 1)
    let spot = image { x, y in (x - 160) * (x - 160) + (y - 120) * (y - 120) < 25 * 25 ? 255 : 110 }
    // About 2.6% of the pixels are in the spot: half marks.
    let score = QualityEstimator.score(.specularity, spot)
    #expect(score > 0.4 && score < 0.6)
    let big = image { x, y in (x - 160) * (x - 160) + (y - 120) * (y - 120) < 40 * 40 ? 255 : 110 }
    #expect(QualityEstimator.score(.specularity, big) < 0.1)
  }

  @Test("estimators write their measurement, marking the group present")
  func writes() throws {
    let schema = MeasurementSchema()
    let estimator = QualityEstimator(.darkness)
    try estimator.prepare(schema: schema)
    let frame = DecodedFrame()
    frame.gray.reshape(width: 8, height: 8, format: .gray8)
    frame.gray.bytes.update(repeating: 0)
    var measurements = MeasurementFrame(t: 0, index: 0)
    estimator.estimate(frame, into: &measurements)
    #expect(measurements[try #require(schema.lookup(path: "quality.darkness"))] == .number(0))
    #expect(measurements[try #require(schema.lookup(path: "quality"))] == .table)
  }

  @Test("the built-in set has one estimator per quality check and the frame size")
  func builtins() {
    let names = BuiltinEstimators.all().map(\.descriptor.name)
    #expect(
      names == [
        "image", "quality.blur", "quality.darkness", "quality.lightness", "quality.illumination", "quality.specularity",
      ])
  }
}
