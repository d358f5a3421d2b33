import Flows
import Logging
import Measurements
import RunComposition
import Session
import Settings
import Testing

@Suite("Measurement references")
struct MeasurementReferenceTests {
  static let logger = Logger(label: "workbench-tests")

  @Test("the estimators declare the face, card, quality and image measurements with their types")
  func estimatorFields() throws {
    let reference = MeasurementReferences.estimators(try WorkbenchHome.locate(), settings: nil, logger: Self.logger)
    let catalog = reference.catalog
    #expect(catalog.lookup("face.pitch") == .value(.number))
    #expect(catalog.lookup("face.count") == .value(.integer))
    #expect(catalog.lookup("face.faces.2.blink_left") == .value(.number))
    #expect(catalog.lookup("face.quality.blur") == .value(.number))
    #expect(catalog.lookup("face.descriptor") == .value(.onRequest))
    #expect(catalog.lookup("card.found") == .value(.boolean))
    #expect(catalog.lookup("card.corners") == .group)
    #expect(catalog.lookup("image.width") == .value(.integer))
    #expect(catalog.lookup("quality.specularity") == .value(.number))
    #expect(catalog.lookup("face.pich") == .unknown)
  }

  @Test("every bundled flow reads only measurements the estimators provide")
  func bundledFlows() throws {
    let home = try WorkbenchHome.locate()
    let reference = MeasurementReferences.estimators(home, settings: nil, logger: Self.logger)
    let flows = [
      "best-shot", "card-then-face", "enroll", "face-add", "hkid-2003", "hkid-2018", "identify", "image-quality",
      "liveness-blink", "liveness-random", "liveness", "liveness-strict", "verify",
    ]
    for name in flows {
      let options = FlowOptions(
        flowPath: home.root + "/examples/\(name).lua", settingDeclarations: RunSettings.declarations)
      let report = try FlowChecker.check(options, measurements: reference, logger: Self.logger)
      #expect(report.problems.isEmpty, "\(name): \(report.problems)")
    }
  }

  @Test("a trace's measurements and their types are what a run on it can read")
  func traceFields() throws {
    let home = try WorkbenchHome.locate()
    let reference = try MeasurementReferences.trace(home.root + "/examples/traces/hkid-2018-pass.jsonl")
    #expect(reference.catalog.lookup("card.found") == .value(.boolean))
    #expect(reference.catalog.lookup("card.tilt_y") == .value(.number))
    #expect(reference.catalog.lookup("face.yaw") == .unknown)
    #expect(reference.missing.contains("hkid-2018-pass.jsonl"))
  }
}
