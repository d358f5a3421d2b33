// Passive liveness: what face.motion (face.pose_jump, face.parallax) costs
// per frame and whether it allocates, and what a face.liveness estimate
// costs with a model of MiniFASNetV2's size (built at run time by
// Tests/PresentationAttackTests/make_models.py: no model ships).
//
// The motion cues replay the faces the real face estimator found on the
// bundled blink video and on a photo moved across a frame, so the timing
// is of face.motion alone, not of MediaPipe.
import BenchSupport
import CAllocationCounter
import Estimators
import FaceEstimation
import Foundation
import Imaging
import JSONCore
import Logging
import Measurements
import MotionCues
import PresentationAttack
import RunComposition
import Session

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
  try benchBestShotFlows(runs: runs, model: folder + "/minifasnet-v2-size.onnx")
}

/// Whole runs on the bundled recording, frames/s from start to result
/// (loading included), of a best shot that holds good frames for 1.2 s
/// (about 65 frames): alone; then with wb.passive_liveness judging the
/// frame after the chosen one (the model runs on that step's frames only,
/// pad.every at its default); and with the model on every frame of the
/// search (best_shot's min_liveness, as LUNA ID's livenessQuality).
private func benchBestShotFlows(runs: Int, model: String) throws {
  let root = benchPackageRoot()
  let recording = root + "/examples/recordings/face-blink.avi"
  let folder = NSTemporaryDirectory() + "workbench-bench-oneshot-\(getpid())"
  try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: folder) }
  func flow(_ name: String, minLiveness: Double, then: String = "") throws -> String {
    let path = folder + "/\(name).lua"
    try """
    local wb = require "wb"
    return wb.flow { name = "\(name)", steps = {
      wb.best_shot { face_time = 1.2, min_face_px = 100, timeout = 10, min_liveness = \(minLiveness) },\(then)
    } }
    """.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }
  let cases: [(name: String, flow: String, model: Bool)] = [
    ("best shot, no estimate", try flow("alone", minLiveness: 0), false),
    (
      "best shot, then the estimate on the frame after it",
      try flow("then-estimate", minLiveness: 0, then: " wb.passive_liveness { threshold = 0 },"), true
    ),
    ("best shot, the model on every frame of the search", try flow("every-frame", minLiveness: 0.01), true),
  ]
  print(
    "best-shot flows on the bundled recording, whole runs, model load included (the cases in turn; median of \(runs) after one warm-up round):"
  )
  var rates = Array(repeating: [Double](), count: cases.count)
  var frames = Array(repeating: 0.0, count: cases.count)
  let events = folder + "/events.jsonl"
  for round in 0...runs {
    for (index, entry) in cases.enumerated() {
      var options = RunOptions(flow: RunSettings.flowOptions(entry.flow), input: .file(recording))
      options.flow.assignments = entry.model ? ["pad.model=\(model)"] : []
      options.eventsPath = events
      let start = nanoseconds()
      let outcome = RunSession.run(options, logger: Logger(label: "bench"))
      let seconds = Double(nanoseconds() - start) / 1e9
      let text = (try? String(contentsOfFile: events, encoding: .utf8)) ?? ""
      guard outcome.result?.success == true,
        let counted = text.split(separator: "\n").last.flatMap({ try? JSONParser.parse(String($0)) })?["frames"]?
          .doubleValue
      else {
        print("  \(entry.name): did not pass (\(outcome.result?.reason ?? "no result")); skipped")
        return
      }
      frames[index] = counted
      if round > 0 { rates[index].append(counted / seconds) }
    }
  }
  let baseline = median(rates[0])
  for (index, entry) in cases.enumerated() {
    let rate = median(rates[index])
    print(
      String(
        format: "  %@: %.0f frames, %.1f frames/s, %.2f× the best shot alone", entry.name, frames[index], rate,
        rate / baseline))
  }
}
