// Soak: does a long session keep its memory flat? examples/card-then-face.lua
// runs as a kiosk runs it, one session after another on one RunSession
// (KioskSoak.swift), with the face estimator (MediaPipe), face descriptors
// (dlib) and the card estimator on real 640×360 pixels, and its events,
// trace, analytics trace and captured images written to files. Two parts:
//
// - simulated: two hours of frame times at 30 fps (216,000 frames) through
//   the frame loop as fast as it measures them, the session's frames looped;
// - camera: the scripted V4L2 device streaming the same frames at 30 fps in
//   real time, through the camera source and its capture thread, which
//   drops what the loop has no time for.
//
// Resident memory (VmRSS) is read after a warm-up, at checkpoints and at
// the end; the verdict compares the end with the warm-up. The warm-up lasts
// five minutes (30 s of the camera; a quarter of a shorter part) and at
// least one whole session: the first face description loads dlib's models
// (about 40 MiB).
// SOAK_MINUTES (default 120) is the simulated length, SOAK_CAMERA_SECONDS
// (default 300) how long the camera runs after its warm-up (0 leaves a part
// out); SOAK_OUT=DIR keeps the outputs there (by default a temporary folder,
// removed); SOAK_SUMMARY=FILE also writes the figures as JSON.
import BenchSupport
import Foundation
import Interrupts
import JSONCore
import Logging

/// How much resident memory may grow from the end of the warm-up to the end
/// of a part and still count as flat. Allocator noise (glibc's arenas,
/// MediaPipe's and dlib's caches) moves VmRSS by a few MiB between
/// checkpoints; one leaked 640×360 colour frame per session would add about
/// 600 MiB over the two hours' 900 sessions, and 100 bytes per frame 21 MiB.
let soakFlatToleranceMiB = 16.0

/// One part's figures.
private struct SoakPart {
  var name: String
  var warmUp: SoakProgress
  var end: SoakProgress
  /// The highest VmRSS read at a checkpoint after the warm-up, bytes.
  var highest: Int

  var growthMiB: Double { mebibytes(end.memory.resident - warmUp.memory.resident) }
  var isFlat: Bool { growthMiB <= soakFlatToleranceMiB }

  var json: JSONValue {
    .object(
      JSONObject([
        ("frames", .integer(Int64(end.frames))), ("seconds", .number(end.seconds)),
        ("wall_seconds", .number(end.wallSeconds)), ("sessions", .integer(Int64(end.sessions))),
        ("passed", .integer(Int64(end.passed))), ("dropped", .integer(Int64(end.dropped))),
        ("camera_frames", .integer(Int64(end.cameraFrames))),
        ("warm_up_frames", .integer(Int64(warmUp.frames))), ("warm_up_seconds", .number(warmUp.seconds)),
        ("warm_up_sessions", .integer(Int64(warmUp.sessions))), ("warm_up_passed", .integer(Int64(warmUp.passed))),
        ("rss_warm_up_mib", .number(mebibytes(warmUp.memory.resident))),
        ("rss_end_mib", .number(mebibytes(end.memory.resident))), ("rss_max_mib", .number(mebibytes(highest))),
        ("hwm_mib", .number(mebibytes(end.memory.peakResident))), ("growth_mib", .number(growthMiB)),
        ("tolerance_mib", .number(soakFlatToleranceMiB)), ("flat", .bool(isFlat)),
      ]))
  }
}

private func mebibytes(_ bytes: Int) -> Double { Double(bytes) / 1_048_576 }

private func clockText(_ seconds: Double) -> String {
  let whole = Int(seconds.rounded())
  return String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60)
}

func runSoakBenchmarks() throws {
  let environment = ProcessInfo.processInfo.environment
  let minutes = Double(environment["SOAK_MINUTES"] ?? "") ?? 120
  let cameraSeconds = Double(environment["SOAK_CAMERA_SECONDS"] ?? "") ?? 300
  let root = benchPackageRoot()
  let kept = environment["SOAK_OUT"]
  let folder = kept ?? NSTemporaryDirectory() + "workbench-soak-\(getpid())"
  try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
  defer { if kept == nil { try? FileManager.default.removeItem(atPath: folder) } }
  var logger = Logger(label: "bench.soak")
  logger.logLevel = .error

  let frames = try KioskFrames.make(root: root, folder: folder)
  print(
    "soak: examples/card-then-face.lua, one session after another on one RunSession (restarted when a session ends);"
      + " face, face-descriptor and card estimators on \(KioskFrames.width)×\(KioskFrames.height) frames;"
      + " events, trace, analytics trace and captured images written to files")
  print(
    String(
      format:
        "one session: %d frames (%.1f s): the card rendered with the man's portrait, then examples/recordings/face-blink.avi",
      frames.jpegs.count, frames.seconds))
  print(
    String(
      format: "verdict: flat when VmRSS at the end is at most %.0f MiB above VmRSS after the warm-up",
      soakFlatToleranceMiB))
  var parts: [SoakPart] = []

  if minutes > 0 {
    let total = Int((minutes * 60 * KioskFrames.framesPerSecond).rounded())
    // Five simulated minutes (a quarter of a shorter soak) for MediaPipe's
    // and the allocator's working sets to settle.
    let warmUpFrames = min(Int(300 * KioskFrames.framesPerSecond), total / 4)
    // Every five simulated minutes (a twelfth of a shorter soak), so that
    // the warm-up ends at a checkpoint.
    let checkpointFrames = max(1, min(warmUpFrames, total / 12))
    print()
    print(
      "simulated: \(clockText(Double(total) / KioskFrames.framesPerSecond)) at 30 fps = \(total) frames, as fast as"
        + " they are measured; checkpoints every \(checkpointFrames) frames")
    let soakFolder = folder + "/simulated"
    try FileManager.default.createDirectory(atPath: soakFolder, withIntermediateDirectories: true)
    let soak = KioskSoak(
      root: root, folder: soakFolder, frames: frames, input: .loopedRecording(frames: total), logger: logger)
    if let part = try runPart("simulated", soak, warmUpFrames: warmUpFrames, checkpointFrames: checkpointFrames) {
      parts.append(part)
    }
  }

  // Ctrl-C ends the part that runs, with its figures so far, and the soak.
  if cameraSeconds > 0, !Interrupts.pending {
    let warmUpSeconds = min(30, cameraSeconds / 4)
    print()
    print(
      String(
        format:
          "camera: the scripted V4L2 device streaming the session's frames at 30 fps in real time, %.0f s after its warm-up",
        cameraSeconds))
    let soakFolder = folder + "/camera"
    try FileManager.default.createDirectory(atPath: soakFolder, withIntermediateDirectories: true)
    let soak = KioskSoak(root: root, folder: soakFolder, frames: frames, input: .camera, logger: logger)
    if let part = try runPart(
      "camera", soak, warmUpFrames: Int(warmUpSeconds * KioskFrames.framesPerSecond), checkpointFrames: 15,
      printEvery: max(1, Int(cameraSeconds / 10)), wallLimit: cameraSeconds)
    {
      parts.append(part)
    }
  }

  if let path = environment["SOAK_SUMMARY"] {
    let summary = JSONObject(parts.map { ($0.name, $0.json) })
    try Data(JSONValue.object(summary).jsonText.utf8).write(to: URL(fileURLWithPath: path))
  }
}

/// Runs one part, printing its checkpoints and figures; nil when it ended
/// (interrupted) before its warm-up. `wallLimit` is the time it runs after
/// its warm-up (else it runs to the end of its input).
private func runPart(
  _ name: String, _ soak: KioskSoak, warmUpFrames: Int, checkpointFrames: Int, printEvery: Int? = nil,
  wallLimit: Double? = nil
) throws -> SoakPart? {
  var warmUp: SoakProgress?
  var highest = 0
  var printed = 0
  func line(_ progress: SoakProgress, _ label: String) {
    var text = String(
      format: "  %@  frames %7d  sessions %4d (%d passed)  VmRSS %6.1f MiB  wall %@",
      clockText(progress.seconds), progress.frames, progress.sessions, progress.passed,
      mebibytes(progress.memory.resident), clockText(progress.wallSeconds))
    if progress.cameraFrames > 0 { text += "  camera frames \(progress.cameraFrames)" }
    print(text + label)
    // Shown as it happens, also when the output goes to a file.
    fflush(nil)
  }
  let end = try soak.run(checkpointFrames: checkpointFrames) { progress in
    guard let warm = warmUp else {
      if progress.frames >= warmUpFrames, progress.sessions >= 1 {
        warmUp = progress
        line(progress, "  (after the warm-up)")
      }
      return true
    }
    highest = max(highest, progress.memory.resident)
    let interval = printEvery.map { Int(progress.wallSeconds) / $0 } ?? progress.frames / checkpointFrames
    if interval > printed {
      printed = interval
      line(progress, "")
    }
    return wallLimit.map { progress.wallSeconds - warm.wallSeconds < $0 } ?? true
  }
  line(end, "  (end)")
  guard let warmUp else {
    print("\(name): ended (\(end.lastReason)) after \(end.frames) frames, before its warm-up: no verdict")
    return nil
  }
  highest = max(highest, end.memory.resident, warmUp.memory.resident)
  let part = SoakPart(name: name, warmUp: warmUp, end: end, highest: highest)
  let measured = end.seconds - warmUp.seconds
  print(
    String(
      format: "%@: %d frames, %@ of session time in %@ wall (%.1f frames/s, %.2f× real time); %d sessions, %d passed",
      name, end.frames, clockText(end.seconds), clockText(end.wallSeconds),
      Double(end.frames) / max(end.wallSeconds, 1e-9), end.seconds / max(end.wallSeconds, 1e-9), end.sessions,
      end.passed))
  if end.cameraFrames > 0 {
    print(
      "\(name): the camera delivered \(end.cameraFrames) frames; the flow processed \(end.frames),"
        + " \(end.dropped) dropped while it was busy")
  }
  print(
    String(
      format:
        "%@: VmRSS %.1f MiB after the warm-up (%d frames), %.1f MiB at the end, %.1f MiB at most;"
        + " growth %+.1f MiB, %+.2f MiB per hour of session time; VmHWM %.1f MiB",
      name, mebibytes(warmUp.memory.resident), warmUp.frames, mebibytes(end.memory.resident), mebibytes(highest),
      part.growthMiB, measured > 0 ? part.growthMiB / (measured / 3600) : 0, mebibytes(end.memory.peakResident)))
  print(
    String(
      format: "%@: %@ (growth %+.1f MiB, tolerance %.0f MiB)", name,
      part.isFlat ? "memory flat" : "MEMORY GROWS", part.growthMiB, soakFlatToleranceMiB))
  return part
}
