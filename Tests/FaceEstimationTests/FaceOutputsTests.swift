import Estimators
import FaceEstimationTesting
import Foundation
import Imaging
import Logging
import Measurements
import TestSupport
import Testing

@testable import FaceEstimation

@Suite("What the face estimator computes: only the parts a run reads")
struct FaceOutputsTests {
  @Test(
    "the parts each read needs",
    arguments: [
      ([String]?.none, FaceOutputs.all),
      ([], []),
      (["face.count", "face.box", "face.ear_left", "face.size", "image.width"], []),
      (["face.yaw"], [.pose]),
      (["face.faces.2.roll"], [.pose]),
      (["face.blink_left"], [.blendshapes]),
      (["face.smile", "face.mouth_open"], [.blendshapes]),
      (["face.quality.blur"], [.quality]),
      (["face.quality"], [.quality]),
      (["face.count", "face.yaw", "face.faces.1.blink_right"], [.pose, .blendshapes]),
      (["face"], .all),
      (["face.faces"], .all),
      (["face.faces.3"], .all),
      (["face.liveness", "face.pose_jump", "card.found", "quality.blur"], []),
    ] as [([String]?, FaceOutputs)])
  func parts(reads: [String]?, expected: FaceOutputs) {
    #expect(FaceOutputs(reads: reads) == expected, "\(reads ?? ["(anything)"])")
  }

  /// The options the estimator started its backend with, on a real backend.
  final class StartedOptions: @unchecked Sendable {
    var started: [MediaPipeFaceOptions] = []
  }

  private func run(reads: [String]?) throws -> (values: [String: Double], started: [MediaPipeFaceOptions]) {
    let record = StartedOptions()
    let estimator = FaceEstimator(options: FaceBackendInstall.options, logger: .init(label: "test")) {
      (options: MediaPipeFaceOptions) throws(FaceBackendError) -> any FaceBackend in
      record.started.append(options)
      return try MediaPipeFaceBackend(options: options)
    }
    estimator.select(reads: reads)
    let schema = MeasurementSchema()
    try estimator.prepare(schema: schema)
    let frame = try FaceFixtures.frame(try FaceFixtures.color("frames/obama-480.jpg"))
    var measurements = MeasurementFrame(t: 0, index: 0)
    estimator.estimate(frame, into: &measurements)
    var values: [String: Double] = [:]
    for (id, node) in schema.nodes.enumerated() {
      if case .number(let number) = measurements[id] { values[node.path] = number }
      if case .integer(let number) = measurements[id] { values[node.path] = Double(number) }
    }
    return (values, record.started)
  }

  @Test(
    "a run that reads no blink field never asks MediaPipe for blendshapes", .requires(FaceBackendInstall.requirement))
  func noBlendshapes() throws {
    let (values, started) = try run(reads: ["face.count", "face.yaw", "face.pitch", "face.roll"])
    #expect(started.count == 1)
    #expect(started.first?.blendshapes == false)
    #expect(started.first?.transformationMatrix == true)
    #expect(values["face.count"] == 1)
    #expect(values["face.yaw"] != nil)
    #expect(values["face.ear_left"] != nil, "the mesh's own fields are always there")
    #expect(values["face.blink_left"] == nil)
    #expect(values["face.smile"] == nil)
    #expect(values["face.quality.blur"] == nil)
  }

  @Test("blinks without the pose: blendshapes, no matrix, no quality", .requires(FaceBackendInstall.requirement))
  func blinksOnly() throws {
    let (values, started) = try run(reads: ["face.blink_left", "face.blink_right"])
    #expect(started.first?.blendshapes == true)
    #expect(started.first?.transformationMatrix == false)
    #expect(values["face.blink_left"] != nil)
    #expect(values["face.yaw"] == nil)
    #expect(values["face.quality.blur"] == nil)
  }

  @Test("the group face, or a run that does not say: everything", .requires(FaceBackendInstall.requirement))
  func everything() throws {
    for reads in [["face"], nil] as [[String]?] {
      let (values, started) = try run(reads: reads)
      #expect(started.first?.blendshapes == true)
      #expect(started.first?.transformationMatrix == true)
      for field in ["face.yaw", "face.blink_left", "face.smile", "face.quality.blur", "face.faces.1.roll"] {
        #expect(values[field] != nil, "\(field) with reads \(reads ?? ["(anything)"])")
      }
    }
  }

  @Test(
    "prepared again for a run that reads more, it starts a backend that gives it",
    .requires(FaceBackendInstall.requirement))
  func readsMore() throws {
    let record = StartedOptions()
    let estimator = FaceEstimator(options: FaceBackendInstall.options, logger: .init(label: "test")) {
      (options: MediaPipeFaceOptions) throws(FaceBackendError) -> any FaceBackend in
      record.started.append(options)
      return try MediaPipeFaceBackend(options: options)
    }
    estimator.select(reads: ["face.yaw"])
    try estimator.prepare(schema: MeasurementSchema())
    estimator.select(reads: ["face.roll"])
    try estimator.prepare(schema: MeasurementSchema())
    #expect(record.started.count == 1, "the backend it has gives the pose")
    estimator.select(reads: ["face.yaw", "face.quality.blur"])
    try estimator.prepare(schema: MeasurementSchema())
    #expect(record.started.count == 1, "the quality is the estimator's own work")
    estimator.select(reads: ["face.smile"])
    try estimator.prepare(schema: MeasurementSchema())
    #expect(record.started.map(\.blendshapes) == [false, true])
  }
}
