// `floor`: what a face flow costs against what no flow can avoid, on one
// core and in one process: MediaPipe's landmarker alone on frames decoded
// beforehand (the floor: landmarks and the transformation matrix, no
// blendshapes), the decode alone, and whole runs of a best-shot and a blink
// flow on the same files. The inputs are the bundled recording and H.264
// clips made from it with the ffmpeg command at 640×360, 1280×720 and
// 1920×1080.
import BenchSupport
import CAllocationCounter
import Capture
import Diagnostics
import Estimators
import FaceEstimation
import Foundation
import Imaging
import Logging
import Measurements
import RunComposition
import Session

func runFloorBenchmarks() throws {
  guard let ffmpeg = executableOnPath("ffmpeg") else {
    print("floor: the ffmpeg command is needed to make the clips (scripts/install-test-deps installs it)")
    return
  }
  let runs = Int(ProcessInfo.processInfo.environment["BENCH_RUNS"] ?? "") ?? 5
  let folder = NSTemporaryDirectory() + "workbench-floor-bench-\(getpid())"
  try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: folder) }
  let recording = benchPackageRoot() + "/examples/recordings/face-blink.avi"
  var inputs = [("bundled MJPEG AVI 640×360", recording)]
  for (width, height) in [(640, 360), (1280, 720), (1920, 1080)] {
    let clip = folder + "/\(width)x\(height).mp4"
    // The recording twice over (144 frames), as a phone writes it: H.264, 4:2:0, limited range.
    try makeClip(
      ffmpeg,
      [
        "-stream_loop", "1", "-i", recording, "-vf", "scale=\(width):\(height)", "-pix_fmt", "yuv420p", "-c:v",
        "libx264", "-preset", "medium", "-crf", "18",
      ], clip)
    inputs.append(("H.264 MP4 \(width)×\(height)", clip))
  }
  let flows = try [
    ("best shot", floorFlow(folder, "best-shot", "wb.best_shot { face_time = 1000, timeout = 1000 }")),
    ("blink", floorFlow(folder, "blink", "wb.blink { min_ms = 4000, max_ms = 5000, timeout = 1000 }")),
  ]
  var options = FaceEstimators.options(home: benchPackageRoot()).backend
  options.blendshapes = false
  guard FaceEstimators.isInstalled(FaceEstimatorOptions(backend: options)) else {
    print("floor: the face backend is not installed (scripts/install-face-backend)")
    return
  }

  print("a face flow's whole run against its floor: one core, ms per frame, median of \(runs) runs")
  print(
    "floor: MediaPipe's landmarker alone (landmarks + matrix) on frames decoded beforehand; decode: the reader alone")
  print("run: the whole run per frame, and after start-up (the run of all frames less the run of the first one)")
  print("ratios: the median over the runs of each round's ratio (floor, decode and runs measured in turn)")
  print(
    "input                       frames   floor  decode   flow        run  after start  run/(floor+decode)  after start"
  )
  var allocations: [String] = []
  var commandDecode: [(String, Double, Double)] = []
  for (name, path) in inputs {
    let frames = try floorFrames(path)
    let count = Double(frames.count)
    commandDecode.append(
      (name, try median((0..<runs).map { _ in try ffmpegDecode(ffmpeg, path) }) / count, 0))
    let firstFrame = folder + "/first-" + (path as NSString).lastPathComponent
    try makeClip(ffmpeg, ["-i", path, "-frames:v", "1", "-c", "copy"], firstFrame)
    // Round by round, the floor, the decode and every run in turn: the
    // machine's speed drifts over a minute by more than the overhead
    // measured, and a ratio taken within one round cancels the drift.
    var floorRuns: [(Double, Double)] = []
    var decodes: [Double] = []
    var whole = [[(Double, Double)]](repeating: [], count: flows.count)
    var first = [[(Double, Double)]](repeating: [], count: flows.count)
    for _ in 0..<runs {
      floorRuns.append(try landmarkerAlone(options, frames: frames))
      decodes.append(try decodeAlone(path))
      for (index, (_, flow)) in flows.enumerated() {
        whole[index].append(try wholeRun(flow, input: path))
        first[index].append(try wholeRun(flow, input: firstFrame))
      }
    }
    let floor = median(floorRuns.map(\.0))
    let decode = median(decodes)
    commandDecode[commandDecode.count - 1].2 = decode
    for (index, (flowName, _)) in flows.enumerated() {
      let (whole, first) = (whole[index], first[index])
      let perFrame = median(whole.map(\.0)) / count
      let afterStart = (median(whole.map(\.0)) - median(first.map(\.0))) / (count - 1)
      let baseline = (0..<runs).map { floorRuns[$0].0 + decodes[$0] }
      let ratio = median((0..<runs).map { whole[$0].0 / count / baseline[$0] })
      let ratioAfterStart = median((0..<runs).map { (whole[$0].0 - first[$0].0) / (count - 1) / baseline[$0] })
      // %@ pads by UTF-16 units and the names hold "×": pad them in Swift.
      print(
        name.padding(toLength: 27, withPad: " ", startingAt: 0)
          + String(format: " %6d  %6.2f  %6.2f   ", frames.count, floor, decode)
          + flowName.padding(toLength: 9, withPad: " ", startingAt: 0)
          + String(
            format: " %6.2f  %11.2f  %18.2f×  %10.2f×", perFrame, afterStart, ratio, ratioAfterStart))
      let runAllocations = (median(whole.map(\.1)) - median(first.map(\.1))) / (count - 1)
      allocations.append(
        name.padding(toLength: 27, withPad: " ", startingAt: 0)
          + flowName.padding(toLength: 10, withPad: " ", startingAt: 0)
          + String(
            format: "%9.0f  %9.0f  %9.0f", median(floorRuns.map(\.1)), runAllocations,
            runAllocations - median(floorRuns.map(\.1))))
    }
  }
  print()
  print(
    "the decode alone: the ffmpeg command (one thread, to nothing, process start included) against the run's reader")
  for (name, command, reader) in commandDecode {
    print(
      name.padding(toLength: 27, withPad: " ", startingAt: 0)
        + String(format: " ffmpeg %6.2f ms/frame   reader %6.2f ms/frame (%.2f×)", command, reader, reader / command))
  }
  print()
  print("allocations a frame (malloc, calloc, realloc; the whole process, MediaPipe's threads included)")
  print("input                      flow        landmarker  run after start  the rest")
  for line in allocations { print(line) }
  print()
  try printScaleLoss(folder: folder, inputs: inputs.filter { $0.1.hasSuffix(".mp4") })
}

/// What the face estimator loses when a video frame is scaled for it (the
/// pipeline's rule: 1/2, 1/4 or 1/8 while at least 640 wide), frame by frame
/// against the same frame at full size.
private func printScaleLoss(folder: String, inputs: [(String, String)]) throws {
  print("the face estimator on the frame scaled as a run scales it, against the same frame at full size")
  print("input                       scaled to   faces (both/full/scaled)  |Δyaw| mean  max   |ΔEAR| mean   max")
  let options = FaceEstimators.options(home: benchPackageRoot())
  for (name, path) in inputs {
    let source = try RecordingSource.open(path: path)
    defer { source.close() }
    let converter = VideoFrameConverter()
    let estimators = [FaceEstimator(options: options), FaceEstimator(options: options)]
    for estimator in estimators { try estimator.prepare(schema: MeasurementSchema()) }
    let frames = [DecodedFrame(), DecodedFrame()]
    var measurements = MeasurementFrame(t: 0, index: 0)
    var (both, fullOnly, scaledOnly) = (0, 0, 0)
    var yaw: [Double] = []
    var ear: [Double] = []
    var scaledSize = ""
    while let frame = try source.next() {
      guard case .image(let image) = frame.payload else { continue }
      var denominator = 1
      for candidate in [8, 4, 2] where image.width / candidate >= 640 {
        denominator = candidate
        break
      }
      let sizes = [
        (image.width, image.height),
        ((image.width + denominator - 1) / denominator, (image.height + denominator - 1) / denominator),
      ]
      scaledSize = "\(sizes[1].0)×\(sizes[1].1)"
      for (index, (width, height)) in sizes.enumerated() {
        let decoded = frames[index]
        decoded.index = frame.index
        decoded.t = frame.t
        decoded.sourceWidth = image.width
        decoded.sourceHeight = image.height
        decoded.hasColor = true
        try converter.convert(image, width: width, height: height, color: decoded.color, gray: decoded.gray)
        estimators[index].estimate(decoded, into: &measurements)
      }
      switch (estimators[0].faces.first, estimators[1].faces.first) {
      case (let full?, let scaled?):
        both += 1
        if let a = full.pose?.yaw, let b = scaled.pose?.yaw { yaw.append(abs(a - b)) }
        if let a = full.eyeAspectRatioLeft, let b = scaled.eyeAspectRatioLeft { ear.append(abs(a - b)) }
        if let a = full.eyeAspectRatioRight, let b = scaled.eyeAspectRatioRight { ear.append(abs(a - b)) }
      case (.some, nil): fullOnly += 1
      case (nil, .some): scaledOnly += 1
      case (nil, nil): break
      }
    }
    func mean(_ values: [Double]) -> Double { values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count) }
    print(
      name.padding(toLength: 28, withPad: " ", startingAt: 0)
        + scaledSize.padding(toLength: 12, withPad: " ", startingAt: 0)
        + "\(both)/\(fullOnly)/\(scaledOnly)".padding(toLength: 26, withPad: " ", startingAt: 0)
        + String(
          format: "%6.2f°  %5.2f°  %10.4f  %6.4f", mean(yaw), yaw.max() ?? 0, mean(ear), ear.max() ?? 0))
  }
}

/// A flow of one step that never passes, so that the run measures every frame of the input.
private func floorFlow(_ folder: String, _ name: String, _ step: String) throws -> String {
  let path = folder + "/\(name).lua"
  try """
  local wb = require "wb"
  return wb.flow { name = "\(name)", steps = { \(step) } }
  """.write(toFile: path, atomically: true, encoding: .utf8)
  return path
}

/// Every frame of the input as full-size RGB, decoded the way a run decodes it.
private func floorFrames(_ path: String) throws -> [ImageBuffer] {
  let source = try RecordingSource.open(path: path)
  defer { source.close() }
  let decoder = JPEGDecoder()
  let converter = VideoFrameConverter()
  let gray = ImageBuffer(format: .gray8)
  var frames: [ImageBuffer] = []
  while let frame = try source.next() {
    let rgb = ImageBuffer(format: .rgb8)
    switch frame.payload {
    case .jpeg(let bytes): try decoder.decode(bytes, into: rgb, format: .rgb8)
    case .image(let image):
      try converter.convert(image, width: image.width, height: image.height, color: rgb, gray: gray)
    case .unreadable: continue
    }
    frames.append(rgb)
  }
  return frames
}

/// ms and allocations per frame of the landmarker's calls alone.
private func landmarkerAlone(_ options: MediaPipeFaceOptions, frames: [ImageBuffer]) throws -> (Double, Double) {
  let backend = try MediaPipeFaceBackend(options: options, logger: Logger(label: "bench"))
  var detections = FaceDetections()
  let allocations = wb_allocation_count()
  let start = benchNanoseconds()
  for (index, frame) in frames.enumerated() {
    try backend.detect(frame, timestampMilliseconds: Int64(index) * 33, into: &detections)
  }
  let count = Double(frames.count)
  return (Double(benchNanoseconds() - start) / 1e6 / count, Double(wb_allocation_count() - allocations) / count)
}

/// ms per frame of reading the input as a run reads it: the reader, and
/// libjpeg-turbo's RGB decode for JPEG frames (a video's frames come
/// decoded by FFmpeg).
private func decodeAlone(_ path: String) throws -> Double {
  let source = try RecordingSource.open(path: path)
  defer { source.close() }
  let decoder = JPEGDecoder()
  let rgb = ImageBuffer(format: .rgb8)
  var frames = 0
  let start = benchNanoseconds()
  while let frame = try source.next() {
    if case .jpeg(let bytes) = frame.payload { try decoder.decode(bytes, into: rgb, format: .rgb8) }
    frames += 1
  }
  return Double(benchNanoseconds() - start) / 1e6 / Double(max(1, frames))
}

/// ms of `ffmpeg -threads 1 -i path -f null -`, a whole process.
private func ffmpegDecode(_ ffmpeg: String, _ path: String) throws -> Double {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: ffmpeg)
  process.arguments = [
    "-hide_banner", "-loglevel", "error", "-nostdin", "-threads", "1", "-i", path, "-f", "null", "-",
  ]
  let start = benchNanoseconds()
  try process.run()
  process.waitUntilExit()
  guard process.terminationStatus == 0 else { throw WorkbenchError(.failed, "ffmpeg could not decode \(path)") }
  return Double(benchNanoseconds() - start) / 1e6
}

/// ms and allocations of a whole run of `flow` on the input, load included.
private func wholeRun(_ flow: String, input: String) throws -> (Double, Double) {
  var options = RunOptions(flow: RunSettings.flowOptions(flow), input: .file(input))
  options.flow.assignments = ["flow.time_limit=0", "flow.step_timeout=0"]
  options.eventsPath = "/dev/null"
  let allocations = wb_allocation_count()
  let start = benchNanoseconds()
  let outcome = RunSession.run(options, logger: Logger(label: "bench"))
  let elapsed = Double(benchNanoseconds() - start) / 1e6
  let allocated = Double(wb_allocation_count() - allocations)
  guard outcome.result?.reason == "end_of_input" else {
    let reason = outcome.result?.reason ?? "no result"
    throw WorkbenchError(.failed, "the run of \(flow) on \(input) ended early: \(reason)")
  }
  return (elapsed, allocated)
}
