import Foundation
import Logging
import Scenarios

/// QA suites: scenarios per second for trace-driven scenarios (the card
/// scenarios of examples/qa), and a 10-second 640×480 recording run with
/// and without faults. In-process, as `workbench test` runs with --jobs 1.
func runQABenchmarks() throws {
  let runs = Int(ProcessInfo.processInfo.environment["BENCH_RUNS"] ?? "") ?? 5
  var logger = Logger(label: "bench")
  logger.logLevel = .critical
  let environment = ScenarioRunner.Environment(logger: logger)

  let traceFiles = try ScenarioRunner.files(in: ["examples/qa/card"])
  let traceScenarios = try traceFiles.flatMap { try ScenarioRunner.load(file: $0) }
  var rates: [Double] = []
  for _ in 0..<runs {
    let started = Date()
    for scenario in traceScenarios {
      let outcome = ScenarioRunner.run(scenario, environment: environment)
      if !outcome.passed { print("warning: \(outcome.name) failed: \(outcome.failures.first ?? outcome.error ?? "")") }
    }
    rates.append(Double(traceScenarios.count) / Date().timeIntervalSince(started))
  }
  print("QA scenarios, in process, one core, median of \(runs) runs")
  print(
    String(
      format: "trace-driven (examples/qa/card, %d scenarios, %d frames each):  %.1f scenarios/s", traceScenarios.count,
      161, median(rates)))

  // A 10-second card scene at 640×480, rendered once (not timed).
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent("workbench-qa-bench-\(getpid())").path
  try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: folder) }
  let schedule = folder + "/ten-seconds.json"
  try """
  {"interpolation": "smoothstep", "keyframes": [
    {"t": 0, "width_ratio": 0.5, "tilt_y": 0}, {"t": 1.5, "tilt_y": 0}, {"t": 2.7, "tilt_y": 35},
    {"t": 3.3, "tilt_y": 35}, {"t": 4.5, "tilt_y": 0}, {"t": 5.5, "tilt_y": 0}, {"t": 6.7, "tilt_y": -35},
    {"t": 7.3, "tilt_y": -35}, {"t": 8.5, "tilt_y": 0}, {"t": 10, "tilt_y": 0}]}
  """.write(toFile: schedule, atomically: true, encoding: .utf8)
  let flow = FileManager.default.currentDirectoryPath + "/examples/hkid-2018.lua"
  func scenario(_ name: String, faults: String) throws -> Scenarios.Scenario {
    let file = folder + "/\(name).lua"
    try """
    return { name = "\(name)", flow = "\(flow)",
      input = { synth = "ten-seconds.json", size = "640x480" }, seed = 5,
      set = { ["hkid.overtime"] = 20 },
      faults = \(faults),
      expect = { result = 0 } }
    """.write(toFile: file, atomically: true, encoding: .utf8)
    return try ScenarioRunner.load(file: file)[0]
  }
  let clean = try scenario("clean", faults: "{}")
  let faulty = try scenario(
    "faults",
    faults: """
      { { drop = 0.1 }, { jitter_ms = 4 }, { glare = { from = 0.5, to = 1.0, share = 0.05 } },
        { noise = { from = 5, to = 6, amplitude = 20 } }, { duplicate = { at = 3, count = 2 } } }
      """)
  _ = ScenarioRunner.run(clean, environment: environment)  // renders the scene into the cache
  var seconds: [String: [Double]] = [:]
  for _ in 0..<runs {
    for (label, item) in [("without faults", clean), ("with faults", faulty)] {
      let started = Date()
      let outcome = ScenarioRunner.run(item, environment: environment)
      seconds[label, default: []].append(Date().timeIntervalSince(started))
      if !outcome.passed { print("warning: \(label): \(outcome.failures.first ?? outcome.error ?? "")") }
    }
  }
  let baseline = median(seconds["without faults"] ?? [1])
  print("10-second 640×480 recording (300 frames), hkid-2018 with the card estimator:")
  for label in ["without faults", "with faults"] {
    let value = median(seconds[label] ?? [0])
    print(
      String(
        format: "  %@ %6.2f s per scenario  %6.1f frames/s  %.2fx",
        label.padding(toLength: 15, withPad: " ", startingAt: 0) as NSString, value, 300 / value,
        value / baseline))
  }
}
