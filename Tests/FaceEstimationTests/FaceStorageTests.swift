import Estimators
import Foundation
import Imaging
import Measurements
import Testing

@testable import FaceEstimation

@Suite("The face estimator keeps its storage from frame to frame")
struct FaceStorageTests {
  /// An estimator on a replaying backend, prepared, and a 640×360 frame.
  private func estimator(_ frames: [[FaceObservation]], reads: [String]? = nil) throws -> (
    FaceEstimator, MeasurementSchema, DecodedFrame
  ) {
    let backend = ReplayingFaceBackend(frames: frames, width: 640, height: 360)
    let estimator = FaceEstimator(
      options: FaceEstimatorOptions(backend: MediaPipeFaceOptions(libraryPath: "", modelPath: ""))
    ) {
      backend
    }
    estimator.select(reads: reads)
    let schema = MeasurementSchema()
    try estimator.prepare(schema: schema)
    let frame = DecodedFrame()
    frame.color.reshape(width: 640, height: 360, format: .rgb8)
    frame.color.pixels.initialize(repeating: 128, count: frame.color.byteCount)
    frame.gray.reshape(width: 640, height: 360, format: .gray8)
    frame.gray.pixels.initialize(repeating: 128, count: frame.gray.byteCount)
    frame.hasColor = true
    return (estimator, schema, frame)
  }

  private func value(_ path: String, _ schema: MeasurementSchema, _ measurements: MeasurementFrame) -> Double? {
    guard let node = schema.lookup(path: path) else { return nil }
    switch measurements[node] {
    case .number(let number): return number
    case .integer(let number): return Double(number)
    default: return nil
    }
  }

  private func landmarksAddress(_ face: FaceMeasurement) -> Int {
    face.landmarks.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) }
  }

  @Test("a face seen frame after frame is measured into the same storage, with each frame's values")
  func sameStorage() throws {
    let open = ReplayingFaceBackend.face(x: 200, y: 80, size: 200, blink: 0.05)
    let closed = ReplayingFaceBackend.face(x: 210, y: 80, size: 200, blink: 0.9)
    let (estimator, schema, frame) = try estimator([[open], [closed]])
    var measurements = MeasurementFrame(t: 0, index: 0)
    estimator.estimate(frame, into: &measurements)
    let address = try landmarksAddress(#require(estimator.faces.first))
    #expect(value("face.blink_left", schema, measurements) == 0.05)
    #expect(value("face.box.x", schema, measurements) == 200)

    frame.index = 1
    frame.t = 1.0 / 30
    measurements = MeasurementFrame(t: frame.t, index: 1)
    estimator.estimate(frame, into: &measurements)
    let face = try #require(estimator.faces.first)
    #expect(landmarksAddress(face) == address, "the landmarks were written into the array of the frame before")
    #expect(value("face.blink_left", schema, measurements) == 0.9)
    #expect(value("face.box.x", schema, measurements) == 210)
    #expect(value("face.count", schema, measurements) == 1)
    #expect(value("face.quality.blur", schema, measurements) != nil)
  }

  @Test("as the faces come and go, they stay ordered largest first and the values follow them")
  func comingAndGoing() throws {
    let small = ReplayingFaceBackend.face(x: 20, y: 20, size: 60)
    let large = ReplayingFaceBackend.face(x: 300, y: 60, size: 240)
    let (estimator, schema, frame) = try estimator([[small, large], [small], [large, small]])
    var sizes: [[Double]] = []
    for index in 0..<3 {
      frame.index = Int64(index)
      frame.t = Double(index) / 30
      var measurements = MeasurementFrame(t: frame.t, index: frame.index)
      estimator.estimate(frame, into: &measurements)
      sizes.append(estimator.faces.map(\.box.width))
      #expect(value("face.count", schema, measurements) == Double(estimator.faces.count))
      #expect(value("face.box.w", schema, measurements) == estimator.faces.first?.box.width)
    }
    #expect(sizes == [[240, 60], [60], [240, 60]])
  }

  @Test("without quality in what the run reads, the scores are left out and stay out")
  func qualityLeftOut() throws {
    let (estimator, schema, frame) = try estimator(
      [[ReplayingFaceBackend.face(x: 200, y: 80, size: 200)]], reads: ["face.count", "face.box"])
    var measurements = MeasurementFrame(t: 0, index: 0)
    estimator.estimate(frame, into: &measurements)
    #expect(estimator.faces.first?.quality.isEmpty == true)
    #expect(value("face.quality.blur", schema, measurements) == nil)
    #expect(value("face.box.w", schema, measurements) == 200)
  }

  @Test("the replaying backend scales its faces to the image it is given")
  func replayScales() throws {
    let backend = ReplayingFaceBackend(
      frames: [[ReplayingFaceBackend.face(x: 100, y: 50, size: 100)]], width: 640, height: 360)
    var detections = FaceDetections()
    try backend.detect(ImageBuffer(width: 320, height: 180, format: .rgb8), timestampMilliseconds: 0, into: &detections)
    #expect(detections.count == 1)
    let box = FaceGeometry.box(of: detections.faces[0].landmarks)
    #expect(box.x == 50 && box.y == 25 && box.width == 50 && box.height == 50)
    #expect(detections.faces[0].landmarks.count == FaceMesh.pointCount)
  }
}
