// `floor`: what a face flow costs against what no flow can avoid, on one
// core and in one process: MediaPipe's landmarker alone on frames decoded
// beforehand (the floor: landmarks and the transformation matrix, no
// blendshapes), the decode alone, and whole runs of a best-shot and a blink
// flow on the same files. The inputs are the bundled recording and H.264
// clips made from it with the ffmpeg command at 640×360, 1280×720 and
// 1920×1080.
import Capture
import Diagnostics
import FaceEstimation
import Foundation
import Imaging
import Logging
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
  print(
    "input                       frames   floor  decode   flow        run  after start  run/(floor+decode)  after start"
  )
  for (name, path) in inputs {
    let frames = try floorFrames(path)
    let floor = try median((0..<runs).map { _ in try landmarkerAlone(options, frames: frames) })
    let decode = try median((0..<runs).map { _ in try decodeAlone(path) })
    let count = Double(frames.count)
    let firstFrame = folder + "/first-" + (path as NSString).lastPathComponent
    try makeClip(ffmpeg, ["-i", path, "-frames:v", "1", "-c", "copy"], firstFrame)
    for (flowName, flow) in flows {
      let whole = try median((0..<runs).map { _ in try wholeRun(flow, input: path) })
      let first = try median((0..<runs).map { _ in try wholeRun(flow, input: firstFrame) })
      let perFrame = whole / count
      let afterStart = (whole - first) / (count - 1)
      print(
        String(
          format: "%-27@ %6d  %6.2f  %6.2f   %-9@ %6.2f  %11.2f  %18.2f×  %10.2f×", name as NSString, frames.count,
          floor, decode, flowName as NSString, perFrame, afterStart, perFrame / (floor + decode),
          afterStart / (floor + decode)))
    }
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

/// ms per frame of the landmarker's calls alone.
private func landmarkerAlone(_ options: MediaPipeFaceOptions, frames: [ImageBuffer]) throws -> Double {
  let backend = try MediaPipeFaceBackend(options: options, logger: Logger(label: "bench"))
  var detections = FaceDetections()
  let start = benchNanoseconds()
  for (index, frame) in frames.enumerated() {
    try backend.detect(frame, timestampMilliseconds: Int64(index) * 33, into: &detections)
  }
  return Double(benchNanoseconds() - start) / 1e6 / Double(frames.count)
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

/// ms of a whole run of `flow` on the input, load included.
private func wholeRun(_ flow: String, input: String) throws -> Double {
  var options = RunOptions(flow: RunSettings.flowOptions(flow), input: .file(input))
  options.flow.assignments = ["flow.time_limit=0", "flow.step_timeout=0"]
  options.eventsPath = "/dev/null"
  let start = benchNanoseconds()
  let outcome = RunSession.run(options, logger: Logger(label: "bench"))
  let elapsed = Double(benchNanoseconds() - start) / 1e6
  guard outcome.result?.reason == "end_of_input" else {
    let reason = outcome.result?.reason ?? "no result"
    throw WorkbenchError(.failed, "the run of \(flow) on \(input) ended early: \(reason)")
  }
  return elapsed
}
