// The soak's session: examples/card-then-face.lua run the way a kiosk runs
// it, one session after another on one RunSession (restarted whenever a
// session ends), over the frames of one session looped on a clock that never
// goes back, or over the scripted V4L2 camera streaming them in real time.
import Capture
import CardScenes
import Diagnostics
import Foundation
import Interrupts
import JSONCore
import Logging
import Measurements
import Reporting
import RunComposition
import Session
import SimulatedCamera

#if canImport(Glibc)
  import Glibc
#endif

/// The frames of one document-then-face session at 30 fps: the HKID 2018
/// card with the man's photo as its portrait, flipped right and back, left
/// and back, then held (examples/synth/card-then-face.json), then the
/// bundled real recording of the man blinking. examples/card-then-face.lua
/// passes on them (Tests/EndToEndTests/CardThenFaceTests.swift).
struct KioskFrames {
  static let framesPerSecond = 30.0
  /// The size of the bundled recording, so that the card's frames match it.
  static let width = 640
  static let height = 360

  let jpegs: [[UInt8]]
  /// The card scene's recording, whose header gives its focal length.
  let cardRecording: SourceInfo

  var seconds: Double { Double(jpegs.count) / Self.framesPerSecond }

  /// Renders the card into `folder` and reads both recordings.
  static func make(root: String, folder: String) throws -> KioskFrames {
    let card = folder + "/card.avi"
    let scene = CardScene(
      schedule: try CardSchedule.load(path: root + "/examples/synth/card-then-face.json"),
      options: CardSceneOptions(width: width, height: height, fps: framesPerSecond, seed: 1),
      texture: try CardTexture.load(portrait: root + "/Tests/Fixtures/people/man-portrait.jpg"))
    _ = try scene.write(to: card)
    var jpegs: [[UInt8]] = []
    var cardInfo: SourceInfo?
    for path in [card, root + "/examples/recordings/face-blink.avi"] {
      let source = try RecordingSource.open(path: path)
      defer { source.close() }
      if cardInfo == nil { cardInfo = source.info }
      while let frame = try source.next() {
        if case .jpeg(let bytes) = frame.payload { jpegs.append(bytes) }
      }
    }
    return KioskFrames(jpegs: jpegs, cardRecording: cardInfo!)
  }
}

/// Frame times shared by every source the soak opens, so that a session
/// restarted on the recording goes on from the last time (a kiosk's clock
/// never goes back, and MediaPipe's video mode needs rising times), and so
/// that the soak's length counts the frames of every session.
final class SoakClock {
  let limit: Int
  private(set) var framesGiven = 0

  init(limit: Int) { self.limit = limit }

  var isExhausted: Bool { framesGiven >= limit }

  /// The next frame's time, nil once the soak has had its frames.
  func tick() -> Double? {
    guard framesGiven < limit else { return nil }
    defer { framesGiven += 1 }
    return Double(framesGiven) / KioskFrames.framesPerSecond
  }
}

/// The session's frames over and over, from its first frame, as a
/// recording reopened by a restart plays them.
final class LoopedKioskRecording: FrameSource {
  let info: SourceInfo
  private let frames: KioskFrames
  private let clock: SoakClock
  private var position = 0

  init(_ frames: KioskFrames, clock: SoakClock) {
    self.frames = frames
    self.clock = clock
    var info = frames.cardRecording
    info.name = "card-then-face session, looped"
    info.frameCount = nil
    self.info = info
  }

  func next() throws(CaptureError) -> CapturedFrame? {
    guard let t = clock.tick() else { return nil }
    defer { position += 1 }
    return CapturedFrame(index: Int64(position), t: t, payload: .jpeg(frames.jpegs[position % frames.jpegs.count]))
  }

  func close() {}
}

/// The process's resident memory, from /proc/self.
struct ProcessMemory {
  /// VmRSS, bytes.
  var resident: Int
  /// VmHWM: the most it has been resident, bytes.
  var peakResident: Int

  static func now() -> ProcessMemory {
    ProcessMemory(resident: statusBytes("VmRSS") ?? 0, peakResident: statusBytes("VmHWM") ?? 0)
  }

  private static func statusBytes(_ key: String) -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      if fields.count >= 2, let kib = Int(fields[1]) { return kib * 1024 }
    }
    return nil
  }
}

/// Where a soak stands.
struct SoakProgress {
  /// Frames the flow processed.
  var frames = 0
  /// Sessions that ended (each a `result` event), and those that passed.
  var sessions = 0
  var passed = 0
  /// The `t` of the last frame: the session's own clock, simulated or the camera's.
  var seconds = 0.0
  var wallSeconds = 0.0
  /// Frames the camera delivered that the flow never got (it was busy).
  var dropped = 0
  /// Frames the scripted camera delivered to the capture thread.
  var cameraFrames = 0
  var memory = ProcessMemory(resident: 0, peakResident: 0)
  /// Why the last session ended.
  var lastReason = ""
}

/// Counts what the soak reports, as an output and an event sink of the session.
private final class SoakCounter: RunOutput, EventSink {
  var progress = SoakProgress()

  func frameProcessed(_ measurements: MeasurementFrame, captured: CapturedFrame?) {
    progress.frames += 1
    progress.seconds = measurements.t
  }

  func finish(_ run: FinishedRun) throws(WorkbenchError) {}

  func emit(_ event: Event) {
    guard event.type == "result" else { return }
    progress.sessions += 1
    if event.fields["success"] == .bool(true) { progress.passed += 1 }
    progress.lastReason = event.fields["reason"]?.stringValue ?? ""
    // A live input's counters run over the whole soak, restarts included.
    if let dropped = event.fields["frames_dropped"]?.integerValue { progress.dropped = Int(dropped) }
  }

  func finish() throws(WorkbenchError) {}
}

/// examples/card-then-face.lua, session after session on one RunSession,
/// with its events, trace, analytics trace and captured images in files.
final class KioskSoak {
  enum Input {
    /// The session's frames looped, `frames` in all, as fast as they are measured.
    case loopedRecording(frames: Int)
    /// The scripted V4L2 camera streaming the session's frames at 30 fps
    /// in real time, through CameraSource and the capture thread.
    case camera
  }

  /// The result reasons of a session ended by its input: over, broken or
  /// interrupted; the soak ends with it.
  private static let inputEndings: Set<String> = ["end_of_input", "input_error", "camera_lost", "interrupted"]

  private let root: String
  private let folder: String
  private let frames: KioskFrames
  private let input: Input
  private let logger: Logger

  init(root: String, folder: String, frames: KioskFrames, input: Input, logger: Logger) {
    self.root = root
    self.folder = folder
    self.frames = frames
    self.input = input
    self.logger = logger
  }

  /// Runs sessions until the input ends or `checkpoint`, called every
  /// `checkpointFrames` frames, returns false; returns where it ended.
  func run(checkpointFrames: Int, checkpoint: (SoakProgress) -> Bool) throws -> SoakProgress {
    var options = RunOptions(
      flow: RunSettings.flowOptions(root + "/examples/card-then-face.lua"),
      input: .camera(device: "/dev/video0", width: nil, height: nil, fps: nil))
    let clock: SoakClock?
    var camera: ScriptedV4L2Device?
    let opener: RunSession.SourceOpener
    switch input {
    case .loopedRecording(let count):
      let shared = SoakClock(limit: count)
      clock = shared
      options.input = .file("card-then-face-session.avi")
      opener = { [frames] _, _ in (LoopedKioskRecording(frames, clock: shared), false) }
    case .camera:
      clock = nil
      let device = ScriptedV4L2Device(
        ScriptedCamera(formats: [.mjpeg([V4L2Size(width: KioskFrames.width, height: KioskFrames.height)])]))
      device.cameras["/dev/video0"]?.stream = ScriptedStream(frames: frames.jpegs)
      device.keepsCallLog = false
      camera = device
      opener = { input, _ throws(WorkbenchError) in
        do throws(CaptureError) {
          return (try CameraSource.open(path: input.name, device: device), true)
        } catch {
          throw WorkbenchError(.input, error.message)
        }
      }
    }
    options.eventsPath = folder + "/events.jsonl"
    options.traceOutPath = folder + "/trace.jsonl"
    options.artifactsPath = folder + "/artifacts"
    let extras = try RunExtras(
      report: nil, analytics: [folder + "/analytics.jsonl"], options: &options, settingsDirectory: nil)
    let session = RunSession(options, logger: logger, openFrames: opener)
    extras.install(into: session)
    let counter = SoakCounter()
    session.addOutput(counter)
    session.addEventSink(counter)

    let started = ProcessInfo.processInfo.systemUptime
    func progress() -> SoakProgress {
      var now = counter.progress
      now.wallSeconds = ProcessInfo.processInfo.systemUptime - started
      now.memory = ProcessMemory.now()
      now.cameraFrames = camera?.streamFramesDelivered ?? 0
      return now
    }
    guard session.open() else {
      let outcome = session.close()
      throw WorkbenchError(.failed, "the soak's session did not start: \(outcome.problems.map(\.message))")
    }
    var nextCheckpoint = checkpointFrames
    while true {
      let going = session.step()
      if counter.progress.frames >= nextCheckpoint {
        nextCheckpoint += checkpointFrames
        guard checkpoint(progress()) else { break }
      }
      if going { continue }
      // A session ended. The input ending or failing ends the soak;
      // anything else (the flow passed or failed) starts the next session.
      if clock?.isExhausted == true || Self.inputEndings.contains(counter.progress.lastReason)
        || Interrupts.pending
      {
        break
      }
      try session.restart()
    }
    let outcome = session.close()
    _ = extras.finish(outcome: outcome, logger: logger)
    let end = progress()
    if !outcome.problems.isEmpty, end.lastReason != "closed", end.lastReason != "end_of_input" {
      logger.error("the soak's last session: \(outcome.problems.map(\.message))")
    }
    return end
  }
}
