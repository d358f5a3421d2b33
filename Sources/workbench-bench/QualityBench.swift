import BenchSupport
import Diagnostics
import Estimators
import Flows
import Foundation
import Imaging
import Logging
import RunComposition
import Session

#if canImport(Glibc)
  import Glibc
#endif

/// The real photos of the test fixtures, decoded to gray.
func fixturePhotos() throws -> [(name: String, gray: ImageBuffer)] {
  let folder = benchPackageRoot() + "/Tests/Fixtures/frames"
  let decoder = JPEGDecoder()
  return try FileManager.default.contentsOfDirectory(atPath: folder).sorted().filter { $0.hasSuffix(".jpg") }.map {
    name in
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
    let gray = ImageBuffer(format: .gray8)
    try decoder.decode(bytes, into: gray, format: .gray8)
    return (name, gray)
  }
}

/// How well each quality score separates real photos from degraded copies,
/// and what each costs per frame.
func runQualityBenchmarks() throws {
  let photos = try fixturePhotos()
  let (rows, summaries) = QualityValidation.run(images: photos)
  print("quality scores on \(photos.count) real photos, untouched and degraded (1 = best; fails below the threshold)")
  let kinds = QualityKind.allCases
  print(
    "image".padding(toLength: 20, withPad: " ", startingAt: 0)
      + "degradation".padding(toLength: 20, withPad: " ", startingAt: 0)
      + kinds.map { $0.rawValue.padding(toLength: 13, withPad: " ", startingAt: 0) }.joined())
  for row in rows {
    let cells = kinds.map { kind -> String in
      let score = String(format: "%.3f", row.scores[kind] ?? 0)
      let mark = (row.scores[kind] ?? 0) < (QualityValidation.defaultThresholds[kind] ?? 0) ? "✗" : " "
      return (score + mark).padding(toLength: 13, withPad: " ", startingAt: 0)
    }
    print(
      row.image.padding(toLength: 20, withPad: " ", startingAt: 0)
        + (row.degradation ?? "-").padding(toLength: 20, withPad: " ", startingAt: 0) + cells.joined())
  }
  print()
  print("check         threshold  good passed  degraded rejected  lowest good  highest degraded")
  for summary in summaries {
    print(
      summary.kind.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0)
        + String(
          format: "%9.2f  %6d/%-4d  %10d/%-6d  %11.3f  %16.3f", summary.threshold, summary.goodPassed, summary.good,
          summary.badRejected, summary.bad, summary.lowestGood, summary.highestBad))
  }
  print()
  try runQualitySpeedBenchmarks()
}

private func nowNanoseconds() -> UInt64 {
  var spec = timespec()
  clock_gettime(CLOCK_MONOTONIC, &spec)
  return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

/// A 640×480 frame made from the first fixture photo, with a little noise
/// so that it costs what a camera frame costs.
func benchFrame640x480() throws -> (gray: ImageBuffer, jpeg: [UInt8]) {
  let photos = try fixturePhotos()
  let resized = ImageBuffer(format: .gray8)
  try ImageConversion.resize(photos[0].gray, width: 640, height: 480, into: resized)
  ImageDegradation.noise(amplitude: 6).apply(to: resized)
  let rgb = ImageBuffer(format: .rgb8)
  try ImageConversion.gray8ToRGB8(resized, into: rgb)
  return (resized, try JPEGEncoder().encode(rgb, quality: 90))
}

/// Each quality estimator, and all five, in ms per 640×480 frame; then the
/// whole replay path — MJPEG file, decode, quality estimators, a flow step —
/// in frames per second.
func runQualitySpeedBenchmarks() throws {
  let runs = Int(ProcessInfo.processInfo.environment["BENCH_RUNS"] ?? "") ?? 5
  let (gray, jpeg) = try benchFrame640x480()
  func msPerCall(_ iterations: Int, _ body: () -> Void) -> Double {
    body()
    var perRun: [Double] = []
    for _ in 0..<runs {
      let start = nowNanoseconds()
      for _ in 0..<iterations { body() }
      perRun.append(Double(nowNanoseconds() - start) / Double(iterations) / 1e6)
    }
    return perRun.sorted()[perRun.count / 2]
  }
  print("quality estimators on one 640×480 frame, median of \(runs) runs, one core")
  print("estimator          ms/frame")
  var sink = 0.0
  for kind in QualityKind.allCases {
    let ms = msPerCall(500) { sink += QualityEstimator.score(kind, gray) }
    print(kind.rawValue.padding(toLength: 18, withPad: " ", startingAt: 0) + String(format: " %8.4f", ms))
  }
  let all = msPerCall(500) { for kind in QualityKind.allCases { sink += QualityEstimator.score(kind, gray) } }
  print("all five          " + String(format: " %8.4f   (target ≤ 1 ms)", all))
  if sink.isNaN { print(sink) }
  print()
  try runReplayThroughput(jpeg: jpeg, runs: runs)
}

func runReplayThroughput(jpeg: [UInt8], runs: Int) throws {
  let frames = 600
  let folder = NSTemporaryDirectory() + "workbench-replay-\(getpid())"
  try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: folder) }
  var stream: [UInt8] = []
  for _ in 0..<frames { stream += jpeg }
  let recording = folder + "/replay.mjpeg"
  try Data(stream).write(to: URL(fileURLWithPath: recording))
  let flowPath = folder + "/quality.lua"
  try """
  local wb = require "wb"
  return wb.flow { name = "replay", steps = {
    wb.range { field = "quality.blur", min = 2, hold_ms = 100,
               needs = { "quality.blur", "quality.darkness", "quality.lightness",
                         "quality.illumination", "quality.specularity" } } } }
  """.write(toFile: flowPath, atomically: true, encoding: .utf8)
  var options = RunOptions(flow: RunSettings.flowOptions(flowPath), input: .file(recording))
  options.flow.assignments = ["flow.time_limit=0", "flow.step_timeout=0"]
  options.eventsPath = "/dev/null"
  var rates: [Double] = []
  var frameCount = 0
  for _ in 0..<runs {
    let start = nowNanoseconds()
    let outcome = RunSession.run(options, logger: Logger(label: "bench"))
    let seconds = Double(nowNanoseconds() - start) / 1e9
    guard outcome.result?.reason == "end_of_input" else {
      throw WorkbenchError(.failed, "replay ended early: \(outcome.result?.reason ?? "no result")")
    }
    frameCount = frames
    rates.append(Double(frames) / seconds)
  }
  let median = rates.sorted()[rates.count / 2]
  print("replay of a 640×480 MJPEG recording (\(frameCount) frames), five quality estimators and a flow step")
  print(String(format: "frames/s (median of %d runs): %.0f   (target ≥ 150)", runs, median))
}
