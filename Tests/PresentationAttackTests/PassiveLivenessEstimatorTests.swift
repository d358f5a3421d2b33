import Estimators
import FaceEstimation
import FaceEstimationTesting
import Foundation
import Imaging
import Measurements
import PresentationAttack
import Settings
import TestSupport
import Testing

/// Settings of `pad.*` as a run resolves them, from `key=value` texts.
func padSettings(_ assignments: [String]) throws -> ResolvedSettings {
  var builder = try SettingsBuilder(declarations: PassiveLivenessEstimator.settingDeclarations)
  for text in assignments {
    let (key, value) = try SettingsBuilder.parseAssignment(text)
    builder.assign(key, text: value, source: .commandLine)
  }
  let (settings, problems) = builder.resolve()
  #expect(problems.isEmpty, "\(problems)")
  return settings
}

@Suite(
  "face.liveness.onnx on a real recording", .serialized, .requires(FaceBackendInstall.requirement),
  .enabled(if: ReferenceModels.available))
struct PassiveLivenessEstimatorTests {
  let models = ReferenceModels.shared

  /// The face estimator and the liveness estimator, prepared on one schema.
  func estimators(_ assignments: [String]) throws -> (FaceEstimator, PassiveLivenessEstimator, MeasurementSchema) {
    let face = FaceEstimator(options: FaceBackendInstall.options)
    let pad = PassiveLivenessEstimator(face: face, settings: try padSettings(assignments))
    let schema = MeasurementSchema()
    try face.prepare(schema: schema)
    try pad.prepare(schema: schema)
    return (face, pad, schema)
  }

  @Test("each frame's face.liveness is the reference evaluator's on the crop of the face found")
  func realFrames() throws {
    let model = try models.path("minifas-80.onnx")
    let (face, pad, schema) = try estimators(["pad.model=\(model)"])
    let node = try #require(try? schema.valueNode("face.liveness", estimator: "test"))
    let first = try #require(try? schema.valueNode("face.faces.1.liveness", estimator: "test"))
    let folder = packageRootPath + "/Tests/Fixtures/faces/single_face_blink_30fps/"
    var seen: [Double] = []
    for index in [1, 8, 16, 24] {
      let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + String(format: "%04d.jpg", index))))
      let frame = DecodedFrame()
      try JPEGDecoder().decode(bytes, into: frame.color, format: .rgb8)
      frame.hasColor = true
      try ImageConversion.rgb8ToGray8(frame.color, into: frame.gray)
      frame.sourceWidth = frame.color.width
      frame.sourceHeight = frame.color.height
      var measurements = MeasurementFrame(t: Double(index) / 30, index: Int64(index))
      face.estimate(frame, into: &measurements)
      pad.estimate(frame, into: &measurements)
      guard case .number(let live) = measurements[node] else {
        Issue.record("frame \(index) has no face.liveness")
        continue
      }
      #expect(measurements[first] == .number(live))
      let crop = try #require(pad.lastCrop)
      let values = try models.reference(model, crop: crop, try #require(pad.configuration))
      let largest = values.max() ?? 0
      let exps = values.map { exp($0 - largest) }
      #expect(abs(live - exps[1] / exps.reduce(0, +)) < 1e-4, "frame \(index)")
      seen.append(live)
    }
    #expect(seen.count == 4)
    #expect(Set(seen).count > 1, "a real face moving gives different crops")
  }

  @Test("pad.every estimates every n-th frame only")
  func every() throws {
    let (face, pad, schema) = try estimators(["pad.model=\(try models.path("minifas-80.onnx"))", "pad.every=3"])
    let node = try #require(try? schema.valueNode("face.liveness", estimator: "test"))
    let bytes = try [UInt8](
      Data(contentsOf: URL(fileURLWithPath: packageRootPath + "/Tests/Fixtures/faces/single_face_blink_30fps/0001.jpg"))
    )
    let frame = DecodedFrame()
    try JPEGDecoder().decode(bytes, into: frame.color, format: .rgb8)
    frame.hasColor = true
    try ImageConversion.rgb8ToGray8(frame.color, into: frame.gray)
    var present: [Bool] = []
    for index in 0..<7 {
      var measurements = MeasurementFrame(t: Double(index) / 30, index: Int64(index))
      face.estimate(frame, into: &measurements)
      pad.estimate(frame, into: &measurements)
      if case .number = measurements[node] { present.append(true) } else { present.append(false) }
    }
    #expect(present == [true, false, false, true, false, false, true])
  }

  @Test("a run that reads face.liveness without a model, or with one that cannot run, fails at start naming it")
  func errorsAtStart() throws {
    let face = FaceEstimator(options: FaceBackendInstall.options)
    let none = PassiveLivenessEstimator(face: face, settings: try padSettings([]))
    let missing = try #require(throws: EstimatorError.self) { try none.prepare(schema: MeasurementSchema()) }
    #expect(missing.message == "face.liveness needs a presentation-attack model, and pad.model is empty")
    #expect(missing.help?.contains("pad.model") == true)

    let wrongSize = PassiveLivenessEstimator(
      face: face, settings: try padSettings(["pad.model=\(try models.path("minifas-80.onnx"))", "pad.input_size=112"]))
    let sized = try #require(throws: EstimatorError.self) { try wrongSize.prepare(schema: MeasurementSchema()) }
    #expect(sized.message.hasSuffix("minifas-80.onnx: takes an input of 80×80, and pad.input_size says 112×112"))
    #expect(sized.help == "set pad.input_size = 80")

    let two = PassiveLivenessEstimator(
      face: face,
      settings: try padSettings([
        #"pad.model=["\#(try models.path("minifas-80.onnx"))", "\#(try models.path("minifas-80.onnx"))"]"#,
        "pad.crop_scale=[2.7, 4, 1]",
      ]))
    let scales = try #require(throws: EstimatorError.self) { try two.prepare(schema: MeasurementSchema()) }
    #expect(scales.message == "pad.crop_scale: has 3 values for 2 models")
  }
}
