import Foundation

#if canImport(Glibc)
  import Glibc
#endif

// The server bench's server: `workbench license serve` in a process of its own, and what it uses.

/// `workbench license serve` as a child process, its output in a file.
struct ServerProcess {
  let process: Process
  let port: Int
  let logPath: String
  /// On a CPU of its own (taskset), apart from the clients.
  let pinned: Bool

  init(binary: String, arguments: [String], log: String) throws {
    logPath = log
    _ = FileManager.default.createFile(atPath: log, contents: nil)
    let process = Process()
    // scripts/bench pins this benchmark to CPU 0; the server gets CPU 1
    // when there is one, as it would have a machine of its own.
    let taskset = "/usr/bin/taskset"
    pinned = ProcessInfo.processInfo.activeProcessorCount > 1 && FileManager.default.isExecutableFile(atPath: taskset)
    if pinned {
      process.executableURL = URL(fileURLWithPath: taskset)
      process.arguments = ["-c", "1", binary] + arguments
    } else {
      process.executableURL = URL(fileURLWithPath: binary)
      process.arguments = arguments
    }
    process.standardOutput = FileHandle(forWritingAtPath: log)
    process.standardError = FileHandle(forWritingAtPath: log)
    try process.run()
    self.process = process
    let deadline = Date().addingTimeInterval(60)
    var found: Int?
    while found == nil && Date() < deadline && process.isRunning {
      let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
      if let line = text.split(separator: "\n").first(where: { $0.contains("listening on http://") }),
        let number = line.split(separator: ":").last.flatMap({ Int($0.prefix { $0.isNumber }) })
      {
        found = number
      } else {
        Thread.sleep(forTimeInterval: 0.05)
      }
    }
    guard let found else {
      if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
      throw BenchFailure("the server did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
    }
    port = found
  }

  var output: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

  func kill() {
    guard process.isRunning else { return }
    Glibc.kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  struct Usage {
    var descriptors: Int
    var megabytes: Double
  }

  /// Open descriptors and resident memory, from /proc.
  func usage() -> Usage {
    let pid = process.processIdentifier
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    let kilobytes =
      status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
      .flatMap { Double($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
    return Usage(descriptors: descriptors, megabytes: kilobytes / 1024)
  }
}

/// The server's descriptors and memory every 250 ms, keeping the largest.
final class UsageSampler: @unchecked Sendable {
  struct Peak {
    var maxDescriptors = 0
    var maxMegabytes = 0.0
  }

  private let server: ServerProcess
  private let lock = NSLock()
  private var peak = Peak()
  private var stopped = false

  init(server: ServerProcess) { self.server = server }

  func start() {
    Thread { [self] in
      while !lock.withLock({ stopped }) {
        let usage = server.usage()
        lock.withLock {
          peak.maxDescriptors = max(peak.maxDescriptors, usage.descriptors)
          peak.maxMegabytes = max(peak.maxMegabytes, usage.megabytes)
        }
        Thread.sleep(forTimeInterval: 0.25)
      }
    }.start()
  }

  /// The peak since the last take.
  func take() -> Peak {
    lock.withLock {
      defer { peak = Peak() }
      return peak
    }
  }

  func stop() { lock.withLock { stopped = true } }
}
