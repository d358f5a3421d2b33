// Passive liveness: what face.motion (face.pose_jump, face.parallax) costs
// per frame and whether it allocates, and what a face.liveness estimate
// costs with a model of MiniFASNetV2's size (built at run time by
// Tests/PresentationAttackTests/make_models.py: no model ships).
//
// The motion cues replay the faces the real face estimator found on the
// bundled blink video and on a photo moved across a frame, so the timing
// is of face.motion alone, not of MediaPipe.
import CAllocationCounter
import Estimators
import FaceEstimation
import Foundation
import Imaging
import Logging
import Measurements
import MotionCues
import PresentationAttack

/// An object on the heap, for the allocation counter's own check.
private final class AllocationProbe {
  let value: Int
  init(_ value: Int) { self.value = value }
}

/// Faces recorded once, handed to face.motion frame by frame.
private final class RecordedFaces: FaceMeasuring {
  var faces: [FaceMeasurement] = []
}

/// The decoded frames of the bundled blink video (72 JPEGs, 640×360).
private func blinkVideoFrames() throws -> [DecodedFrame] {
  let folder = benchPackageRoot() + "/Tests/Fixtures/faces/single_face_blink_30fps/"
  return try (1...72).map { index in
    let frame = DecodedFrame()
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + String(format: "%04d.jpg", index))))
    try JPEGDecoder().decode(bytes, into: frame.color, format: .rgb8)
    frame.hasColor = true
    try ImageConversion.rgb8ToGray8(frame.color, into: frame.gray)
    frame.sourceWidth = frame.color.width
    frame.sourceHeight = frame.color.height
    return frame
  }
}

func runLivenessBenchmarks() throws {
  let runs = Int(ProcessInfo.processInfo.environment["BENCH_RUNS"] ?? "") ?? 5
  let options = FaceEstimators.options(home: benchPackageRoot())
  guard FileManager.default.fileExists(atPath: options.backend.libraryPath),
    FileManager.default.fileExists(atPath: options.backend.modelPath)
  else {
    print("liveness: the face backend is not installed (scripts/install-face-backend); skipped")
    return
  }
  var logger = Logger(label: "bench.liveness")
  logger.logLevel = .error
  let face = FaceEstimator(options: options, logger: logger)
  try face.prepare(schema: MeasurementSchema())
  let frames = try blinkVideoFrames()
  var recorded: [[FaceMeasurement]] = []
  var measurements = MeasurementFrame(t: 0, index: 0)
  for (index, frame) in frames.enumerated() {
    frame.index = Int64(index)
    frame.t = Double(index) / 30
    face.estimate(frame, into: &measurements)
    recorded.append(face.faces)
  }
  // The same face moved sideways by 4 px a frame and turned by 1° a frame:
  // every few frames change its shape enough for a parallax fit.
  for step in 1...72 {
    recorded.append(
      recorded[step % 72].map { found in
        var moved = found
        let angle = Float(step) * .pi / 180
        let centre = SIMD3<Float>(Float(found.box.x + found.box.width / 2), 0, 0)
        for index in moved.landmarks.indices {
          var point = moved.landmarks[index] - centre
          point = SIMD3(
            point.x * cos(angle) + point.z * sin(angle), point.y, -point.x * sin(angle) + point.z * cos(angle))
          moved.landmarks[index] = point + centre + SIMD3(Float(4 * step), 0, 0)
        }
        return moved
      })
  }

  let source = RecordedFaces()
  let motion = FaceMotionEstimator(face: source, settings: nil)
  let schema = MeasurementSchema()
  try motion.prepare(schema: schema)
  let parallaxNode = try schema.valueNode("face.parallax", estimator: "bench")
  let frame = DecodedFrame()
  var frameMeasurements = MeasurementFrame(t: 0, index: 0)
  var clock = 0.0
  var index: Int64 = 0
  let passes = 200
  var perRun: [Double] = []
  var allocationsPerFrame: [Double] = []
  var fits = 0
  for run in 0...runs {
    let allocationsBefore = wb_allocation_count()
    let start = nanoseconds()
    for _ in 0..<passes {
      for faces in recorded {
        source.faces = faces
        clock += 1.0 / 30
        index += 1
        frame.t = clock
        frame.index = index
        frameMeasurements.t = clock
        frameMeasurements[parallaxNode] = .absent
        motion.estimate(frame, into: &frameMeasurements)
        if run == 0, case .number = frameMeasurements[parallaxNode] { fits += 1 }
      }
    }
    let elapsed = Double(nanoseconds() - start)
    let count = Double(passes * recorded.count)
    // The first run warms up (the storage of the measurements grows once).
    if run > 0 {
      perRun.append(elapsed / count / 1000)
      allocationsPerFrame.append(Double(wb_allocation_count() - allocationsBefore) / count)
    }
  }
  // The counter's own check: 100 allocations of the Swift runtime must show.
  var probes: [AllocationProbe] = []
  probes.reserveCapacity(100)
  let probeBefore = wb_allocation_count()
  for index in 0..<100 { probes.append(AllocationProbe(index)) }
  let probed = wb_allocation_count() - probeBefore
  withExtendedLifetime(probes) {}
  print("face.motion (face.pose_jump and face.parallax), median of \(runs) runs of \(passes * recorded.count) frames")
  print(
    String(
      format: "  %.2f µs per frame; %.4f allocations per frame; a parallax fit on %d of %d frames",
      median(perRun), median(allocationsPerFrame), fits / passes, recorded.count))
  print("  (the allocation counter saw \(probed) of 100 allocations made to check it)")

  var fit = PlanarFit(capacity: FaceMotionEstimator.rigidPoints.count)
  let points = FaceMotionEstimator.rigidPoints.count
  // A face-sized pattern of points, and the same points moved and slightly off one plane.
  var from: [Double] = []
  var to: [Double] = []
  for index in 0..<(points * 2) {
    let value = Double((index * 37) % 101) + Double(index % 2) * 13
    let shift: Double = index % 2 == 0 ? 3 : -2
    from.append(value)
    to.append(value * 1.02 + shift + Double(index % 5) * 0.1)
  }
  var fitRuns: [Double] = []
  for _ in 0..<runs {
    let repeats = 20_000
    var sink = 0.0
    let start = nanoseconds()
    from.withUnsafeBufferPointer { a in
      to.withUnsafeBufferPointer { b in
        for _ in 0..<repeats { sink += fit.residual(from: a, to: b, count: points) ?? 0 }
      }
    }
    fitRuns.append(Double(nanoseconds() - start) / Double(repeats) / 1000)
    if sink.isNaN { print("") }
  }
  print(String(format: "  one homography fit over %d points: %.2f µs", points, median(fitRuns)))

  try benchPADModel(runs: runs, frame: frames[0], box: recorded[0].first?.box)
}

/// ms per face.liveness estimate (crop, input, inference, output) with a
/// model of MiniFASNetV2's size, when the test Python (with onnx) is there.
private func benchPADModel(runs: Int, frame: DecodedFrame, box: FaceBox?) throws {
  let python = benchPackageRoot() + "/.build/test-python/bin/python"
  guard FileManager.default.isExecutableFile(atPath: python), let box else {
    print("face.liveness.onnx: skipped (scripts/install-test-deps builds the Python that makes the model)")
    return
  }
  let folder = NSTemporaryDirectory() + "workbench-bench-pad-\(getpid())"
  try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: folder) }
  let process = Process()
  process.executableURL = URL(fileURLWithPath: python)
  process.arguments = [benchPackageRoot() + "/Tests/PresentationAttackTests/make_models.py", "bench", folder]
  try process.run()
  process.waitUntilExit()
  guard process.terminationStatus == 0 else {
    print("face.liveness.onnx: the model could not be built (make_models.py exited \(process.terminationStatus))")
    return
  }
  let scorer = try PADScorer(
    PADConfiguration(models: [folder + "/minifasnet-v2-size.onnx"], width: 80, height: 80))
  let estimates = 200
  var perRun: [Double] = []
  for run in 0...runs {
    let start = nanoseconds()
    for _ in 0..<estimates { _ = try scorer.liveProbability(of: box, in: frame.color) }
    if run > 0 { perRun.append(Double(nanoseconds() - start) / Double(estimates) / 1e6) }
  }
  print(
    "face.liveness.onnx, a model of MiniFASNetV2's size (0.39 M parameters, 80×80, built at run time), median of \(runs) runs of \(estimates) estimates"
  )
  print(String(format: "  %.2f ms per estimate, crop included (a 640×360 frame)", median(perRun)))
}
