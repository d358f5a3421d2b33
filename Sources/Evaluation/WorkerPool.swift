import Diagnostics
import Foundation
import Interrupts

/// `--jobs N`: N worker processes of the same evaluation, each with its own
/// estimators, each writing its finished sessions to a part file of its
/// own; the parent shows their progress and, when they end, takes their
/// records into the sessions file, so the result is that of one process.
struct WorkerPool {
  let folder: String
  let jobs: Int
  let command: @Sendable (Int, Int) -> [String]

  static func partPath(_ folder: String, _ index: Int) -> String { folder + "/.workers/part-\(index).jsonl" }
  static func countsPath(_ folder: String, _ index: Int) -> String { folder + "/.workers/part-\(index).counts.json" }

  /// Runs the workers to their end; true when interrupted.
  func run(into log: SessionLog, progress: EvaluationProgress) throws(WorkbenchError) -> (Bool, CacheCounts) {
    let parts = folder + "/.workers"
    try? FileManager.default.removeItem(atPath: parts)
    try Evaluation.makeFolder(parts)
    defer { try? FileManager.default.removeItem(atPath: parts) }
    var processes: [Process] = []
    for index in 1...jobs {
      let arguments = command(index, jobs)
      let process = Process()
      process.executableURL = URL(fileURLWithPath: arguments[0])
      process.arguments = Array(arguments.dropFirst())
      process.standardOutput = FileHandle.nullDevice
      do {
        try process.run()
      } catch {
        for started in processes { started.terminate() }
        throw WorkbenchError(.usage, "cannot start a worker: \(error.localizedDescription)")
      }
      processes.append(process)
    }
    var done = 0
    var watched = (1...jobs).map { PartWatch(path: Self.partPath(folder, $0)) }
    while processes.contains(where: \.isRunning) {
      if Interrupts.pending {
        // Ctrl-C reached the workers too (one process group); SIGTERM may not have.
        for process in processes where process.isRunning { kill(process.processIdentifier, SIGINT) }
      }
      usleep(100_000)
      var now = 0
      for index in watched.indices { now += watched[index].lines() }
      while done < now {
        done += 1
        progress.advance(cached: 0)
      }
    }
    var counts = CacheCounts()
    var failed: [Int32] = []
    for (offset, process) in processes.enumerated() {
      for record in SessionLog.read(Self.partPath(folder, offset + 1)) { try log.append(record) }
      if let part = CacheCounts(path: Self.countsPath(folder, offset + 1)) { counts.add(part) }
      let status = process.terminationStatus
      if status != 0 && status != ExitStatus.interrupted.rawValue && process.terminationReason == .exit {
        failed.append(status)
      }
    }
    let interrupted =
      Interrupts.pending || processes.contains { $0.terminationStatus == ExitStatus.interrupted.rawValue }
    if !failed.isEmpty && !interrupted {
      throw WorkbenchError(
        ExitStatus(rawValue: failed[0]) ?? .usage, "a worker ended with exit status \(failed[0])",
        help: "run with --jobs 1 to see its error")
    }
    return (interrupted, counts)
  }

}

/// The whole lines a worker has written to its part file so far, read
/// from where the last look ended: a long run's parts are not read again
/// from their start ten times a second.
struct PartWatch {
  let path: String
  private var offset: UInt64 = 0
  private var count = 0

  init(path: String) { self.path = path }

  mutating func lines() -> Int {
    guard let handle = FileHandle(forReadingAtPath: path) else { return count }
    defer { try? handle.close() }
    guard (try? handle.seek(toOffset: offset)) != nil, let data = try? handle.readToEnd() else { return count }
    offset += UInt64(data.count)
    count += data.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
    return count
  }
}
