import Diagnostics
import Foundation

/// One scenario to run: where it is and what it is called.
public struct ScenarioAddress: Sendable, Equatable {
  public var file: String
  public var index: Int?
  public var name: String
}

/// Runs a suite: in this process one after another, or in `jobs` worker
/// processes at once; reports each outcome, in suite order, as it is known.
public struct SuiteRunner {
  public var jobs = 1
  /// The command line of a worker that runs one scenario and prints its
  /// outcome as one JSON line (`workbench test FILE --only N --worker`).
  public var workerCommand: ((ScenarioAddress) -> [String])?

  public init() {}

  /// Loads the scenarios of `files`; a file that does not load becomes one
  /// failed outcome (the rest of the suite still runs).
  public static func collect(files: [String]) -> (scenarios: [Scenario], broken: [ScenarioOutcome]) {
    var scenarios: [Scenario] = []
    var broken: [ScenarioOutcome] = []
    for file in files {
      do {
        scenarios += try ScenarioRunner.load(file: file)
      } catch {
        let text = error.diagnostics.map { diagnostic in
          diagnostic.locatedMessage
            + (diagnostic.help.map { "\n  help: \($0)" } ?? "")
        }.joined(separator: "\n")
        broken.append(
          ScenarioOutcome(
            name: (file as NSString).lastPathComponent, file: file, reproduce: "workbench test \(file)", failures: [],
            error: "the scenario file does not load:\n" + text, exitStatus: 2, result: "not run", eventCount: 0,
            seconds: 0))
      }
    }
    return (scenarios, broken)
  }

  /// Runs every scenario and calls `report(position, outcome)` in order.
  public func run(
    _ scenarios: [Scenario], environment: ScenarioRunner.Environment, report: (Int, ScenarioOutcome) -> Void
  ) {
    guard jobs > 1, let workerCommand, scenarios.count > 1 else {
      for (position, scenario) in scenarios.enumerated() {
        report(position, ScenarioRunner.run(scenario, environment: environment))
      }
      return
    }
    var results: [Int: ScenarioOutcome] = [:]
    var nextToReport = 0
    var running: [(position: Int, worker: Worker)] = []
    var nextToStart = 0
    while nextToReport < scenarios.count {
      while running.count < jobs && nextToStart < scenarios.count {
        let scenario = scenarios[nextToStart]
        let address = ScenarioAddress(file: scenario.file, index: scenario.index, name: scenario.name)
        running.append((nextToStart, Worker(arguments: workerCommand(address), scenario: scenario)))
        nextToStart += 1
      }
      if let finished = running.firstIndex(where: { !$0.worker.isRunning }) {
        let (position, worker) = running.remove(at: finished)
        results[position] = worker.outcome()
      } else {
        usleep(2_000)
      }
      while let outcome = results[nextToReport] {
        report(nextToReport, outcome)
        results[nextToReport] = nil
        nextToReport += 1
      }
    }
  }
}

/// A worker process running one scenario.
final class Worker {
  private let process = Process()
  private let output: FileHandle
  private let outputPath: String
  private let errorPath: String
  private let scenario: Scenario
  private let started = Date()
  private var launchError: String?

  init(arguments: [String], scenario: Scenario) {
    self.scenario = scenario
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("workbench-worker-\(UUID().uuidString)")
      .path
    outputPath = base + ".out"
    errorPath = base + ".err"
    _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
    _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
    output = FileHandle(forWritingAtPath: outputPath) ?? FileHandle.nullDevice
    process.executableURL = URL(fileURLWithPath: arguments[0])
    process.arguments = Array(arguments.dropFirst())
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = output
    process.standardError = FileHandle(forWritingAtPath: errorPath) ?? FileHandle.nullDevice
    do { try process.run() } catch { launchError = "cannot start a worker: \(error.localizedDescription)" }
  }

  var isRunning: Bool { launchError == nil && process.isRunning }

  func outcome() -> ScenarioOutcome {
    defer {
      try? FileManager.default.removeItem(atPath: outputPath)
      try? FileManager.default.removeItem(atPath: errorPath)
    }
    if launchError == nil { process.waitUntilExit() }
    let text = FileManager.default.contents(atPath: outputPath).map { String(decoding: $0, as: UTF8.self) } ?? ""
    if let line = text.split(separator: "\n").last, let outcome = SuiteReport.outcome(json: String(line)) {
      return outcome
    }
    let stderr = FileManager.default.contents(atPath: errorPath).map { String(decoding: $0, as: UTF8.self) } ?? ""
    return ScenarioOutcome(
      name: scenario.name, file: scenario.file, reproduce: scenario.reproduce, failures: [],
      error: launchError ?? "the worker ended without an outcome (exit \(process.terminationStatus)): \(stderr)",
      exitStatus: process.terminationStatus, result: "not run", eventCount: 0,
      seconds: Date().timeIntervalSince(started))
  }
}

/// A one-line progress bar on a terminal's standard error.
public final class ProgressBar {
  private let total: Int
  private var done = 0
  private var failed = 0
  private let enabled: Bool

  public init(total: Int) {
    self.total = total
    enabled = isatty(STDERR_FILENO) == 1 && total > 0
  }

  public func advance(passed: Bool) {
    done += 1
    if !passed { failed += 1 }
    guard enabled else { return }
    let width = 30
    let filled = total == 0 ? width : done * width / total
    let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
    let line = "\r\(bar) \(done)/\(total)  \(done - failed) passed  \(failed) failed"
    FileHandle.standardError.write(Data(line.utf8))
    if done == total { FileHandle.standardError.write(Data("\n".utf8)) }
  }

  /// Clears the bar so that a line can be printed over it.
  public func clear() {
    guard enabled, done < total else { return }
    FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
  }
}
