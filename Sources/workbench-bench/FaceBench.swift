// The face estimator (MediaPipe Face Landmarker): ms per frame at 640×480
// and 1280×720, with a face (tracked from frame to frame, as in a video),
// without one (the detector runs every frame) and with the 2×2 tile
// search; then the process's memory and threads. The frames are made at
// run time from fixture photos (a frame of the blink video; the sky of
// multi_face.jpg), scaled and cropped to the size, so no large files live
// in the repository.
import BenchSupport
import Estimators
import FaceEstimation
import Foundation
import Imaging
import Logging
import Measurements

#if canImport(Glibc)
  import Glibc
#endif

/// A line of /proc/self/status, such as "VmRSS", in MiB.
private func statusMiB(_ key: String) -> Double? {
  guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
  for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
    let fields = line.split(separator: " ", omittingEmptySubsequences: true)
    if fields.count >= 2, let kib = Double(fields[1]) { return kib / 1024 }
  }
  return nil
}

private func threadCount() -> Int {
  (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
}

/// `source` scaled to cover `width`×`height` and cropped to it, centred.
private func frameOfSize(_ source: ImageBuffer, width: Int, height: Int) throws -> ImageBuffer {
  let scale = max(Double(width) / Double(source.width), Double(height) / Double(source.height))
  let scaled = ImageBuffer(format: .rgb8)
  try ImageConversion.resize(
    source, width: Int((Double(source.width) * scale).rounded(.up)),
    height: Int((Double(source.height) * scale).rounded(.up)), into: scaled)
  let result = ImageBuffer(format: .rgb8)
  try ImageConversion.crop(
    scaled, x: (scaled.width - width) / 2, y: (scaled.height - height) / 2, width: width, height: height,
    into: result)
  return result
}

private func decodedFrame(_ color: ImageBuffer) throws -> DecodedFrame {
  let frame = DecodedFrame()
  frame.color.reshape(width: color.width, height: color.height, format: .rgb8)
  frame.color.pixels.update(from: color.pixels, count: color.byteCount)
  frame.hasColor = true
  try ImageConversion.rgb8ToGray8(color, into: frame.gray)
  frame.sourceWidth = color.width
  frame.sourceHeight = color.height
  return frame
}

func runFaceBenchmarks() throws {
  let runs = Int(ProcessInfo.processInfo.environment["BENCH_RUNS"] ?? "") ?? 5
  let framesPerRun = 30
  let options = FaceEstimators.options(home: benchPackageRoot())
  guard FileManager.default.fileExists(atPath: options.backend.libraryPath),
    FileManager.default.fileExists(atPath: options.backend.modelPath)
  else {
    print("face: the backend is not installed (scripts/install-face-backend); skipped")
    return
  }
  let fixture = benchPackageRoot() + "/Tests/Fixtures/faces/single_face_blink_30fps/0001.jpg"
  let source = ImageBuffer(format: .rgb8)
  try JPEGDecoder().decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture))), into: source, format: .rgb8)

  let threadsBefore = threadCount()
  let rssBefore = statusMiB("VmRSS") ?? 0
  var logger = Logger(label: "bench.face")
  logger.logLevel = .error
  let start = benchNanoseconds()
  let probe = FaceEstimator(options: options, logger: logger)
  try probe.prepare(schema: MeasurementSchema())
  let createMs = Double(benchNanoseconds() - start) / 1e6
  let threadsAfter = threadCount()
  let rssAfter = statusMiB("VmRSS") ?? 0

  print(
    "face estimator (MediaPipe Face Landmarker, CPU), ms per frame, median of \(runs) runs of \(framesPerRun) frames")
  print(String(format: "start (library + model, first landmarker): %.0f ms", createMs))
  print("case                               640×480   1280×720")
  var timestamp = 0.0
  func msPerFrame(_ estimator: FaceEstimator, _ frame: DecodedFrame) -> Double {
    let schema = MeasurementSchema()
    try? estimator.prepare(schema: schema)
    var measurements = MeasurementFrame(t: 0, index: 0)
    for _ in 0..<5 {  // warm up, and let tracking lock on
      timestamp += 1.0 / 30
      frame.t = timestamp
      estimator.estimate(frame, into: &measurements)
    }
    var perRun: [Double] = []
    for _ in 0..<runs {
      let begin = benchNanoseconds()
      for _ in 0..<framesPerRun {
        timestamp += 1.0 / 30
        frame.t = timestamp
        estimator.estimate(frame, into: &measurements)
      }
      perRun.append(Double(benchNanoseconds() - begin) / Double(framesPerRun) / 1e6)
    }
    return perRun.sorted()[perRun.count / 2]
  }
  let sizes = [(640, 480), (1280, 720)]
  let withFace = try sizes.map { try decodedFrame(frameOfSize(source, width: $0.0, height: $0.1)) }
  // The sky and sea right of the group in multi_face.jpg: a real photo without a face.
  let group = ImageBuffer(format: .rgb8)
  let groupFile = benchPackageRoot() + "/Tests/Fixtures/faces/multi_face.jpg"
  try JPEGDecoder().decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: groupFile))), into: group, format: .rgb8)
  let sky = ImageBuffer(format: .rgb8)
  try ImageConversion.crop(group, x: 560, y: 0, width: 440, height: 250, into: sky)
  let noFace = try sizes.map { try decodedFrame(frameOfSize(sky, width: $0.0, height: $0.1)) }
  var tiled = options
  tiled.backend.searchTiles = 2
  // A run that reads the pose only: no blendshape model, no quality over the face box.
  let poseOnly = ["face.count", "face.yaw", "face.pitch", "face.roll"]
  let cases: [(String, FaceEstimatorOptions, [DecodedFrame], [String]?)] = [
    ("one face (tracked)", options, withFace, nil),
    ("one face, a run reading the pose", options, withFace, poseOnly),
    ("no face (detector every frame)", options, noFace, nil),
    ("one face, 2×2 tile search", tiled, withFace, nil),
  ]
  for (name, caseOptions, frames, reads) in cases {
    let cells = frames.map { frame -> String in
      // A fresh estimator per size: video mode tracks one stream.
      let estimator = FaceEstimator(options: caseOptions, logger: logger)
      estimator.select(reads: reads)
      return String(format: "%8.2f", msPerFrame(estimator, frame))
    }
    print(name.padding(toLength: 33, withPad: " ", startingAt: 0) + cells.joined(separator: "   "))
  }
  // The library's call alone, without the estimator's own work (the mesh
  // in source pixels, pose, eye ratios, face-region quality, measurements).
  let backendCells = try withFace.map { frame -> String in
    let backend = try MediaPipeFaceBackend(options: options.backend, logger: logger)
    var detections = FaceDetections()
    var milliseconds: Int64 = 0
    for _ in 0..<5 {
      milliseconds += 33
      try backend.detect(frame.color, timestampMilliseconds: milliseconds, into: &detections)
    }
    var perRun: [Double] = []
    for _ in 0..<runs {
      let begin = benchNanoseconds()
      for _ in 0..<framesPerRun {
        milliseconds += 33
        try backend.detect(frame.color, timestampMilliseconds: milliseconds, into: &detections)
      }
      perRun.append(Double(benchNanoseconds() - begin) / Double(framesPerRun) / 1e6)
    }
    return String(format: "%8.2f", perRun.sorted()[perRun.count / 2])
  }
  print(
    "one face, the backend's call only".padding(toLength: 33, withPad: " ", startingAt: 0)
      + backendCells.joined(separator: "   "))
  print()
  print(
    String(
      format: "memory: VmRSS %.0f MiB before the backend, %.0f MiB with one landmarker, %.0f MiB now; VmHWM %.0f MiB",
      rssBefore, rssAfter, statusMiB("VmRSS") ?? 0, statusMiB("VmHWM") ?? 0))
  print(
    "threads: \(threadsBefore) before the backend, \(threadsAfter) with one landmarker "
      + "(MediaPipe's workers; the C API has no option to limit them; under taskset they share the one core)")
}
