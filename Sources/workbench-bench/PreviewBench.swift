// The frame loop's throughput with the preview page open and slow clients,
// against the same run without them, alternating in one process: a face
// flow on the bundled real recording four times over at 1280×720, with the
// real face estimator, once as MJPEG (the page gets the JPEG as it came) and
// once as H.264 (the page's frames are copied on the loop and encoded on its
// request). The clients: one like the page, asking for the next frame and its
// image as soon as it has the last, and long-polling the state; a slow one
// that waits 250 ms between frames; one that asks for the state and never
// reads the answer.
import Capture
import Diagnostics
import Flows
import Foundation
import Logging
import Preview
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

  print(
    "preview: a face flow on 288 real frames at 1280×720, frames per second of the frame loop, median of \(runs), one core"
  )
  for (name, clip) in [("MJPEG AVI", mjpeg), ("H.264 MP4", h264)] {
    var plain: [Double] = []
    var watched: [Double] = []
    var sent: [Int64] = []
    for _ in 0..<runs {
      plain.append(try framesPerSecond(flow: flow, clip: clip, preview: nil))
      var counters: (processed: Int64, sent: Int64) = (0, 0)
      watched.append(try framesPerSecond(flow: flow, clip: clip, preview: { counters = $0 }))
      sent.append(counters.sent)
    }
    let medianPlain = median(plain)
    let medianWatched = median(watched)
    print("  \(name), without the page            " + String(format: "%7.1f fps", medianPlain))
    print(
      "  \(name), with the page and slow ones  "
        + String(
          format: "%7.1f fps  (%.3f× of without; %lld frames sent to the clients)", medianWatched,
          medianWatched / medianPlain, sent.sorted()[sent.count / 2]))
  }
}

private func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  return sorted.count % 2 == 1
    ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

private func framesPerSecond(
  flow: String, clip: String, preview report: (((processed: Int64, sent: Int64)) -> Void)?
) throws -> Double {
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

/// The page's slow cousins: see the top of this file.
private final class SlowClients: @unchecked Sendable {
  private let lock = NSLock()
  private var stopping = false
  private var threads: [Thread] = []
  private var silent: Int32 = -1

  func start(port: Int) {
    let base = "http://127.0.0.1:\(port)"
    let slow = Thread { [self] in
      var last: Int64?
      while !isStopping {
        if let frame = get(base + "/api/frame" + (last.map { "?after=\($0)" } ?? "")),
          let object = try? JSONSerialization.jsonObject(with: frame) as? [String: Any],
          let sequence = object["sequence"] as? Int
        {
          last = Int64(sequence)
          _ = get(base + "/api/frame.jpg?sequence=\(sequence)")
        }
        Thread.sleep(forTimeInterval: 0.25)
      }
    }
    let state = Thread { [self] in
      var version: Int64?
      while !isStopping {
        if let body = get(base + "/api/state" + (version.map { "?after=\($0)" } ?? "")),
          let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
        {
          version = (object["version"] as? Int).map(Int64.init)
        }
      }
    }
    let page = Thread { [self] in
      var last: Int64?
      while !isStopping {
        if let frame = get(base + "/api/frame" + (last.map { "?after=\($0)" } ?? "")),
          let object = try? JSONSerialization.jsonObject(with: frame) as? [String: Any],
          let sequence = object["sequence"] as? Int
        {
          last = Int64(sequence)
          _ = get(base + "/api/frame.jpg?sequence=\(sequence)")
        }
      }
    }
    threads = [page, slow, state]
    for thread in threads { thread.start() }
    // Connects, asks, and never reads.
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    if connected == 0 {
      let request = "GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
      _ = request.withCString { send(socket, $0, strlen($0), 0) }
      silent = socket
    }
  }

  var isStopping: Bool { lock.withLock { stopping } }

  func stop() {
    lock.withLock { stopping = true }
    if silent >= 0 { close(silent) }
    while threads.contains(where: { $0.isExecuting }) { Thread.sleep(forTimeInterval: 0.01) }
  }

  private func get(_ url: String) -> Data? {
    guard let url = URL(string: url) else { return nil }
    final class Box: @unchecked Sendable { var data: Data? }
    let box = Box()
    let done = DispatchSemaphore(value: 0)
    URLSession.shared.dataTask(with: URLRequest(url: url, timeoutInterval: 5)) { data, _, _ in
      box.data = data
      done.signal()
    }.resume()
    done.wait()
    return box.data
  }
}
