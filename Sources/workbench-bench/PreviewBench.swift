// The frame loop's throughput with the preview page open and slow clients,
// against the same run without them, alternating in one process: a face
// flow on the bundled real recording four times over at 1280×720, with the
// real face estimator, once as MJPEG (the page gets the JPEG as it came) and
// once as H.264 (the page's frames are copied on the loop and encoded on its
// request). The clients, in a process of their own on the other core as a
// browser would be: one like the page, asking for the next frame and its
// image as soon as it has the last; one that long-polls the state; a slow one
// that waits 250 ms between frames; one that asks for the state and never
// reads the answer. The run, its server included, stays on core 0.
import BenchSupport
import Capture
import Diagnostics
import Flows
import Foundation
import Logging
import Preview
import RunComposition
import Session

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif
#if canImport(Glibc)
  import Glibc
#endif

func runPreviewBenchmarks() throws {
  guard let ffmpeg = executableOnPath("ffmpeg") else {
    print("preview: the ffmpeg command is needed to make the clip (scripts/install-test-deps installs it)")
    return
  }
  let runs = Int(ProcessInfo.processInfo.environment["BENCH_RUNS"] ?? "") ?? 5
  let folder = NSTemporaryDirectory() + "workbench-preview-bench-\(getpid())"
  try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: folder) }
  let recording = benchPackageRoot() + "/examples/recordings/face-blink.avi"
  let scaled = ["-stream_loop", "3", "-i", recording, "-vf", "scale=1280:720"]
  let mjpeg = folder + "/720p-mjpeg.avi"
  let h264 = folder + "/720p-h264.mp4"
  try makeClip(ffmpeg, scaled + ["-c:v", "mjpeg", "-q:v", "3", "-pix_fmt", "yuvj420p"], mjpeg)
  try makeClip(ffmpeg, scaled + ["-c:v", "libx264", "-preset", "medium", "-crf", "20", "-pix_fmt", "yuv420p"], h264)
  // Never passes: every frame of the clip reaches the flow.
  let flow = folder + "/watch.lua"
  try """
  local wb = require "wb"
  return wb.flow {
    name = "watch", time_limit = 0, step_timeout = 0,
    steps = { wb.threshold { name = "turn far", field = "face.yaw", above = 80, hint = "face.turn_left" } },
  }
  """.write(toFile: flow, atomically: true, encoding: .utf8)

  // The run on core 0 and the clients on core 1, with the run's other
  // threads (the page's server) first on core 0 too, then free to use core 1:
  // what the page's work costs a run that has one core, and whether the
  // frame loop ever waits for the page.
  let placements: [(name: String, server: [Int])] = [
    ("everything on core 0", [0]), ("frame loop alone on core 0", [0, 1]),
  ]
  print("preview: a face flow on 288 real frames at 1280×720, frames per second of the frame loop, median of \(runs)")
  for placement in placements {
    print("  \(placement.name) (the clients in their own process on core 1):")
    for (name, clip) in [("MJPEG AVI", mjpeg), ("H.264 MP4", h264)] {
      var plain: [Double] = []
      var watched: [Double] = []
      var sent: [Int64] = []
      for _ in 0..<runs {
        plain.append(try framesPerSecond(flow: flow, clip: clip, threads: placement.server, preview: nil))
        var counters: (processed: Int64, sent: Int64) = (0, 0)
        watched.append(
          try framesPerSecond(flow: flow, clip: clip, threads: placement.server, preview: { counters = $0 }))
        sent.append(counters.sent)
      }
      let medianPlain = median(plain)
      let medianWatched = median(watched)
      print("    \(name), without the page            " + String(format: "%7.1f fps", medianPlain))
      print(
        "    \(name), with the page and slow ones  "
          + String(
            format: "%7.1f fps  (%.3f× of without; %lld frames sent to the clients)", medianWatched,
            medianWatched / medianPlain, sent.sorted()[sent.count / 2]))
    }
  }
  pinThreads(of: getpid(), to: [0])
}

/// Pins every thread of `process` to `cores` (util-linux's taskset);
/// threads made later take their maker's cores.
private func pinThreads(of process: pid_t, to cores: [Int]) {
  taskset(["-a", "-p", "-c", cores.map(String.init).joined(separator: ","), String(process)])
}

/// Pins the calling thread to `cores`.
private func pinThisThread(to cores: [Int]) {
  // /proc/thread-self names this thread's task: .../task/TID.
  guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"),
    let task = link.split(separator: "/").last.map(String.init)
  else { return }
  taskset(["-p", "-c", cores.map(String.init).joined(separator: ","), task])
}

private func taskset(_ arguments: [String]) {
  guard let program = executableOnPath("taskset") else { return }
  let process = Process()
  process.executableURL = URL(fileURLWithPath: program)
  process.arguments = arguments
  process.standardOutput = FileHandle.nullDevice
  process.standardError = FileHandle.nullDevice
  try? process.run()
  process.waitUntilExit()
}

private func framesPerSecond(
  flow: String, clip: String, threads cores: [Int], preview report: (((processed: Int64, sent: Int64)) -> Void)?
) throws -> Double {
  // The run's threads where the placement says, then the frame loop (this thread) on core 0.
  pinThreads(of: getpid(), to: cores)
  defer { pinThreads(of: getpid(), to: [0]) }
  var logger = Logger(label: "bench")
  logger.logLevel = .error
  var options = RunOptions(flow: RunSettings.flowOptions(flow), input: .file(clip))
  options.showStatusLine = false
  let session = RunSession(options, logger: logger)
  var server: PreviewServer?
  var publisher: PreviewPublisher?
  let clients = SlowClients()
  if report != nil {
    let made = PreviewPublisher()
    made.attach(schema: session.measurementSchema)
    made.overlays = { [unowned session] in session.currentOverlays() }
    session.addLiveSink(made)
    session.addOutput(made)
    let controls = ControlMailbox()
    session.controls = controls
    let started = PreviewServer(address: PreviewAddress(), publisher: made, controls: controls)
    let port = try started.start()
    clients.start(port: port)
    server = started
    publisher = made
  }
  // The frame loop only: opening the flow and starting the estimators cost the same either way.
  var frames = 0
  var start = nanoseconds()
  pinThisThread(to: [0])
  if session.open() {
    start = nanoseconds()
    while session.step() { frames += 1 }
  }
  let seconds = Double(nanoseconds() - start) / 1e9
  _ = session.close()
  clients.stop()
  server?.stop()
  if let publisher { report?(publisher.counters) }
  guard frames > 0 else {
    throw WorkbenchError(.usage, "the bench flow saw no frames: is the face estimator installed?")
  }
  return Double(frames) / seconds
}

/// The page and its slow cousins (see the top of this file), in a process
/// of their own on the other core when there is one, as a browser would be:
/// what they cost the run is the server's work for them, not their own.
private final class SlowClients {
  private var process: Process?
  private let script: String

  init() {
    script = NSTemporaryDirectory() + "workbench-preview-clients-\(getpid()).py"
    try? Self.source.write(toFile: script, atomically: true, encoding: .utf8)
  }

  deinit { try? FileManager.default.removeItem(atPath: script) }

  func start(port: Int) {
    guard let python = executableOnPath("python3") else { return }
    let process = Process()
    let cores = ProcessInfo.processInfo.activeProcessorCount
    if cores > 1, let taskset = executableOnPath("taskset") {
      process.executableURL = URL(fileURLWithPath: taskset)
      process.arguments = ["-c", "1", python, script, String(port)]
    } else {
      process.executableURL = URL(fileURLWithPath: python)
      process.arguments = [script, String(port)]
    }
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try? process.run()
    self.process = process
  }

  func stop() {
    guard let process, process.isRunning else { return }
    process.terminate()
    process.waitUntilExit()
  }

  static let source = """
    import json, socket, sys, threading, time, urllib.request
    base = "http://127.0.0.1:%s" % sys.argv[1]

    def get(path):
        try:
            with urllib.request.urlopen(base + path, timeout=5) as answer:
                return answer.read()
        except Exception:
            return None

    def frames(pause):
        last = None
        while True:
            body = get("/api/frame" + ("" if last is None else "?after=%d" % last))
            if body:
                frame = json.loads(body)
                last = frame["sequence"]
                get("/api/frame.jpg?sequence=%d" % last)
            time.sleep(pause)

    def states():
        version = None
        while True:
            body = get("/api/state" + ("" if version is None else "?after=%d" % version))
            if body:
                version = json.loads(body)["version"]

    silent = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    silent.sendall(b"GET /api/state HTTP/1.1\\r\\nHost: 127.0.0.1:%s\\r\\n\\r\\n" % sys.argv[1].encode())
    for target, arguments in ((frames, (0,)), (frames, (0.25,)), (states, ())):
        threading.Thread(target=target, args=arguments, daemon=True).start()
    while True:
        time.sleep(1)
    """
}
