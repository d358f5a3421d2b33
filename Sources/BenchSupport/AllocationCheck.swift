// `allocations`: what the hot path allocates, a frame at a time, and a check
// that it stays within its limits (the group exits 1 when it does not; the
// test command runs it). A run steps frame by frame (read, decode, convert,
// estimators, flow, events) with the face estimator on a backend that
// replays faces into the storage it is given (MediaPipe itself allocates
// about 12,900 times a frame, and is not ours to change). The count is the
// stepping thread's: the calls of malloc, calloc and realloc, whatever other
// threads do (a video's decoding thread is FFmpeg's, and is printed apart).
// Frames on which the flow emits an event (a step starts or ends, a best
// shot is kept) build that event and may allocate: they are counted apart.
// An optimised build: an unoptimised one calls the standard library's
// generic code unspecialised, which allocates where the optimised one does not.
import CAllocationCounter
import Capture
import CardEstimation
import Diagnostics
import Estimators
import FaceEstimation
import FaceRecognition
import Flows
import Foundation
import JSONCore
import Logging
import MotionCues
import PresentationAttack
import Reporting
import Session
import Settings

/// The most a frame without events may allocate on the stepping thread, by
/// input. JPEG frames allocate in libjpeg-turbo, which gives each image
/// memory pools of its own and frees them at its end (10 calls a frame with
/// libjpeg-turbo 2.1.5); nothing else may allocate.
private let allocationLimits = ["MJPEG AVI": 12, "MJPEG stream": 12, "H.264 MP4": 0, "Y4M": 0]

/// The settings a run declares, of the modules the check links.
private let linkedRunSettings: [SettingDeclaration] =
  FlowSettings.engine + RunOutputSettings.declarations + FaceEstimators.settingDeclarations
  + FaceRecognitionModels.settingDeclarations + CardEstimatorSetup.settingDeclarations
  + PassiveLivenessEstimator.settingDeclarations + FaceMotionEstimator.settingDeclarations
  + FaceMotionEstimator.stepSettingDeclarations

/// Counts the events of a run.
private final class EventCounter: EventSink {
  var count = 0
  func emit(_ event: Event) { count += 1 }
  func finish() throws(WorkbenchError) {}
}

/// The built-in estimators and the face estimator with its capture and
/// motion, the face on a replaying backend.
private struct ReplayedFaceEstimators: EstimatorProvider {
  func estimators(for flow: LoadedFlow, also: [String], logger: Logger) -> [any Estimator] {
    let blinks = (0..<30).map { frame in
      [ReplayingFaceBackend.face(x: 220, y: 70, size: 200, blink: frame % 10 < 2 ? 0.9 : 0.05)]
    }
    let backend = ReplayingFaceBackend(frames: blinks, width: 640, height: 360)
    let face = FaceEstimator(options: FaceEstimators.options(home: flow.home, settings: flow.settings)) {
      backend
    }
    return BuiltinEstimators.all() + [
      FaceCaptureEstimator(face), FaceMotionEstimator(face: face, settings: flow.settings),
    ]
  }
}

public func runAllocationCheck() throws {
  guard let ffmpeg = executableOnPath("ffmpeg") else {
    throw WorkbenchError(
      .failed, "allocations: the ffmpeg command makes the clips (scripts/install-test-deps installs it)")
  }
  let folder = NSTemporaryDirectory() + "workbench-allocation-bench-\(getpid())"
  try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: folder) }
  let recording = benchPackageRoot() + "/examples/recordings/face-blink.avi"
  // The bundled recording (72 frames) three times over: warm-up and 100 frames fit.
  let looped = ["-stream_loop", "2", "-i", recording]
  let inputs: [(kind: String, name: String, path: String)] = [
    ("MJPEG AVI", "MJPEG AVI 640×360", try clip(ffmpeg, looped + ["-c:v", "copy"], folder + "/looped.avi")),
    (
      "MJPEG stream", "MJPEG stream 640×360",
      try clip(ffmpeg, looped + ["-c:v", "copy", "-f", "mjpeg"], folder + "/looped.mjpeg")
    ),
    (
      "H.264 MP4", "H.264 MP4 1280×720",
      try clip(
        ffmpeg, looped + ["-vf", "scale=1280:720", "-pix_fmt", "yuv420p", "-c:v", "libx264"], folder + "/720p.mp4")
    ),
    (
      "Y4M", "Y4M 640×360",
      try clip(ffmpeg, looped + ["-frames:v", "130", "-pix_fmt", "yuv420p"], folder + "/clip.y4m")
    ),
  ]
  let settings = try linkedRunSettings + unlinkedSettings()
  let flows = [
    ("blink", "wb.blink { min_ms = 4000, max_ms = 5000, timeout = 1000 }"),
    ("best shot", "wb.best_shot { face_time = 1000, timeout = 1000 }"),
    ("head turn", "wb.head_turn { direction = \"left\", timeout = 1000 }"),
  ]
  print("allocations a frame on the stepping thread, 100 frames after 20 of warm-up (malloc, calloc, realloc)")
  print("input                  flow         frames   min  median     max   limit   with events (max)   all threads")
  var over: [String] = []
  for input in inputs {
    for (name, step) in flows {
      let path = folder + "/\(name.replacingOccurrences(of: " ", with: "-")).lua"
      try """
      local wb = require "wb"
      return wb.flow { name = "allocations", steps = { \(step) } }
      """.write(toFile: path, atomically: true, encoding: .utf8)
      let stepped = try steppedAllocations(flow: path, input: input.path, settings: settings)
      let quiet = stepped.frames.filter { !$0.hadEvents }.map(\.allocations).sorted()
      let withEvents = stepped.frames.filter(\.hadEvents).map(\.allocations)
      let limit = allocationLimits[input.kind] ?? 0
      let most = quiet.last ?? 0
      print(
        input.name.padding(toLength: 23, withPad: " ", startingAt: 0)
          + name.padding(toLength: 12, withPad: " ", startingAt: 0)
          + String(
            format: "%6d %5d %7d %7d %7d %8d (%6d) %13.1f", quiet.count, quiet.first ?? 0,
            quiet.isEmpty ? 0 : quiet[quiet.count / 2],
            most, limit, withEvents.count, withEvents.max() ?? 0, stepped.processPerFrame))
      if most > limit {
        over.append("\(input.name), \(name): up to \(most) a frame without events (limit \(limit))")
      }
      // A check of a handful of frames would prove little.
      if quiet.count < 50 {
        over.append("\(input.name), \(name): only \(quiet.count) frames of 100 without events")
      }
    }
  }
  guard over.isEmpty else {
    print("error: the hot path allocates more than its limit: " + over.joined(separator: "; "))
    // exit skips the deferred removal.
    try? FileManager.default.removeItem(atPath: folder)
    exit(1)
  }
}

/// The bundled settings of what the check does not link (the gallery, the
/// liveness service), declared as their values in configs/settings.json are
/// written, so that the bundled file loads as it does in a run: they are
/// never read here. Only plain values are expected there.
private func unlinkedSettings() throws -> [SettingDeclaration] {
  let path = benchPackageRoot() + "/configs/settings.json"
  let bundled = try JSONParser.parse(String(contentsOfFile: path, encoding: .utf8))
  let linked = Set(linkedRunSettings.map(\.key))
  var declarations: [SettingDeclaration] = []
  for (group, values) in bundled.objectValue ?? JSONObject() {
    for (name, value) in values.objectValue ?? JSONObject() where !linked.contains(group + "." + name) {
      let key = group + "." + name
      let doc = "not linked by the allocation check"
      switch value {
      case .bool(let flag): declarations.append(.boolean(key, default: flag, doc: doc))
      case .integer(let number): declarations.append(.integer(key, default: number, doc: doc))
      case .number(let number): declarations.append(.number(key, default: number, doc: doc))
      case .string(let text): declarations.append(.string(key, default: text, doc: doc))
      default:
        throw WorkbenchError(
          .failed, "\(path): '\(key)' is a \(value.kindName); the allocation check declares plain values only")
      }
    }
  }
  return declarations
}

private func clip(_ ffmpeg: String, _ arguments: [String], _ path: String) throws -> String {
  try makeClip(ffmpeg, arguments, path)
  return path
}

/// The stepping thread's allocations in each of 100 frames after 20, whether
/// the flow emitted events in it, and the whole process's a frame over them.
private func steppedAllocations(flow: String, input: String, settings: [SettingDeclaration]) throws -> (
  frames: [(allocations: Int, hadEvents: Bool)], processPerFrame: Double
) {
  var options = RunOptions(
    flow: FlowOptions(flowPath: flow, settingDeclarations: settings), input: .file(input))
  options.flow.assignments = ["flow.time_limit=0", "flow.step_timeout=0"]
  options.eventsPath = "/dev/null"
  options.showStatusLine = false
  let session = RunSession(options, logger: Logger(label: "bench"), estimators: ReplayedFaceEstimators())
  let events = EventCounter()
  session.addEventSink(events)
  guard session.open() else {
    let outcome = session.close()
    throw WorkbenchError(.failed, "the run of \(flow) on \(input) did not start: \(outcome.problems)")
  }
  defer { _ = session.close() }
  for _ in 0..<20 where !session.step() {
    throw WorkbenchError(.failed, "the run of \(flow) on \(input) ended in its warm-up")
  }
  var frames = [(allocations: Int, hadEvents: Bool)](repeating: (0, false), count: 100)
  let processBefore = wb_allocation_count()
  for index in frames.indices {
    let eventsBefore = events.count
    let before = wb_thread_allocation_count()
    let going = session.step()
    frames[index] = (Int(wb_thread_allocation_count() - before), events.count > eventsBefore)
    guard going else { throw WorkbenchError(.failed, "the run of \(flow) on \(input) ended at frame \(20 + index)") }
  }
  return (frames, Double(wb_allocation_count() - processBefore) / Double(frames.count))
}
