import Evaluation
import Foundation
import Logging
import RunComposition

/// `workbench eval` over a corpus whose measurements are cached: frames
/// and sessions per second replayed on one core, and a sweep of 20 points
/// against 20 evaluations of one point each (the grid shares reading the
/// cache). In process, as `workbench eval` runs with --jobs 1.
func runEvalBenchmarks() throws {
  let runs = Int(ProcessInfo.processInfo.environment["BENCH_RUNS"] ?? "") ?? 5
  let sessions = Int(ProcessInfo.processInfo.environment["BENCH_EVAL_SESSIONS"] ?? "") ?? 1000
  var logger = Logger(label: "bench")
  logger.logLevel = .critical
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent("workbench-eval-bench-\(getpid())").path
  try FileManager.default.createDirectory(atPath: folder + "/scenes", withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: folder) }
  // Face scenes of 7 s at 30 fps: most blink at some time, some never do
  // (then the flow waits for its 5 s timeout).
  var manifest = ""
  for index in 0..<sessions {
    let blinks = index % 5 == 4 ? "[]" : "[{\"t\": \(1 + Double(index % 40) * 0.1), \"ms\": \(100 + index % 7 * 60)}]"
    let schedule = """
      {"kind": "face", "noise": \(index % 3), "keyframes": [{"t": 0, "size": 0.45}, {"t": 7, "x": 0.01}],
       "blinks": \(blinks)}
      """
    try schedule.write(toFile: folder + "/scenes/\(index).json", atomically: true, encoding: .utf8)
    let label = index % 3 == 0 ? "\"label\":\"attack\",\"species\":\"replay\"" : "\"label\":\"bona_fide\""
    manifest += "{\"input\":\"scenes/\(index).json\",\(label)}\n"
  }
  try manifest.write(toFile: folder + "/corpus.jsonl", atomically: true, encoding: .utf8)
  let flow = FileManager.default.currentDirectoryPath + "/examples/liveness-blink.lua"

  func evaluate(_ grid: SettingsGrid = SettingsGrid(), set: [String] = []) -> (seconds: Double, frames: Int) {
    var flowOptions = RunSettings.flowOptions(flow)
    flowOptions.assignments = set
    var options = EvaluationOptions(
      flow: flowOptions, corpusPath: folder + "/corpus.jsonl", outFolder: folder + "/out")
    options.cacheFolder = folder + "/cache"
    options.grid = grid
    let started = Date()
    let outcome = Evaluation.run(options, logger: logger)
    if outcome.status != .passed { print("warning: eval ended with \(outcome.status): \(outcome.problems)") }
    return (Date().timeIntervalSince(started), outcome.frames)
  }
  _ = evaluate()  // generates the scenes' traces into the cache (not timed)

  var frameRates: [Double] = []
  var sessionRates: [Double] = []
  var frames = 0
  for _ in 0..<runs {
    let run = evaluate()
    frames = run.frames
    frameRates.append(Double(run.frames) / run.seconds)
    sessionRates.append(Double(sessions) / run.seconds)
  }
  print("eval over a cached corpus, in process, one core, median of \(runs) runs")
  print(
    String(
      format: "replay: %d sessions, %d frames:  %.0f frames/s  %.1f sessions/s", sessions, frames,
      median(frameRates), median(sessionRates)))

  let values = (0..<20).map { String(300 + $0 * 50) }
  let grid = SettingsGrid(axes: [try SettingsGrid.axis("liveness.blink_max_ms=" + values.joined(separator: ","))])
  var sweepSeconds: [Double] = []
  var separateSeconds: [Double] = []
  for _ in 0..<max(1, runs / 2) {
    sweepSeconds.append(evaluate(grid).seconds)
    separateSeconds.append(values.reduce(0) { $0 + evaluate(set: ["liveness.blink_max_ms=\($1)"]).seconds })
  }
  let sweep = median(sweepSeconds)
  let separate = median(separateSeconds)
  print(
    String(
      format: "sweep of 20 points: %.2f s; 20 evaluations of one point: %.2f s; sweep / separate: %.2fx", sweep,
      separate, sweep / separate))
  try runEvalProcessBenchmarks(corpus: folder + "/corpus.jsonl", cache: folder + "/cache", runs: runs)
}

/// Whole processes of the workbench binary of this build: `eval` measuring
/// a recording against `run` on it (both read every frame: the flow never
/// decides), alternating; and `--jobs 2` against `--jobs 1` over the cached
/// corpus, on two cores.
func runEvalProcessBenchmarks(corpus: String, cache: String, runs: Int) throws {
  let workbench = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path + "/workbench"
  guard FileManager.default.isExecutableFile(atPath: workbench) else {
    print(
      "(eval against run, and --jobs: build the workbench binary first: swift build -c release --product workbench)")
    return
  }
  let folder = (corpus as NSString).deletingLastPathComponent
  func seconds(_ arguments: [String], cores: String = "0") throws -> Double {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
    process.arguments = ["-c", cores, workbench] + arguments
    process.standardOutput = FileHandle.nullDevice
    let started = Date()
    try process.run()
    process.waitUntilExit()
    if process.terminationStatus > 1 {
      print("warning: workbench \(arguments.joined(separator: " ")) ended with \(process.terminationStatus)")
    }
    return Date().timeIntervalSince(started)
  }
  let recording = FileManager.default.currentDirectoryPath + "/examples/recordings/face-blink.avi"
  try "{\"input\":\"\(recording)\",\"label\":\"bona_fide\"}\n".write(
    toFile: folder + "/one.jsonl", atomically: true, encoding: .utf8)
  let flow = FileManager.default.currentDirectoryPath + "/examples/liveness-blink.lua"
  let never = ["--set", "liveness.blink_min_ms=1000", "--set", "liveness.interaction_timeout=60"]
  var ratios: [Double] = []
  for run in 0..<runs {
    let cold = folder + "/cold-\(run)"
    let evaluation = try seconds(
      ["eval", flow, folder + "/one.jsonl", "--out", cold, "--cache", cold + "/cache", "--quiet"] + never)
    let plain = try seconds(["run", flow, "--input", recording, "--quiet"] + never)
    ratios.append(evaluation / plain)
  }
  print(
    String(format: "measuring: eval / run over the same recording (face estimator, every frame): %.3fx", median(ratios))
  )

  var jobRatios: [Double] = []
  for run in 0..<runs {
    let one = try seconds(
      ["eval", flow, corpus, "--out", folder + "/jobs1-\(run)", "--cache", cache, "--quiet"], cores: "0,1")
    let two = try seconds(
      ["eval", flow, corpus, "--out", folder + "/jobs2-\(run)", "--cache", cache, "--quiet", "--jobs", "2"],
      cores: "0,1")
    jobRatios.append(two / one)
  }
  print(String(format: "--jobs 2 / --jobs 1 over the cached corpus, two cores: %.2fx the time", median(jobRatios)))
}
