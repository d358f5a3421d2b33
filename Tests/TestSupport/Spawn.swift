import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Runs a program that may leave daemons behind (pg_ctl, scripts/slurm-cluster)
/// and waits for that program alone, with posix_spawn and waitpid: Foundation's
/// Process never says such a program ended while the daemons it left run.
/// The child starts with no signal blocked and every signal at its default:
/// the test runner's threads block nearly every signal and a child inherits
/// that, and a daemon that inherits it never sees the SIGTERM that stops it.
public enum Spawn {
  /// Runs `program` (a path) with `arguments`, the test process's environment
  /// plus `environment`, standard input from /dev/null and its output in
  /// files. A program still running after `limit` seconds, a safety bound
  /// only, is killed (status -9).
  public static func run(
    _ program: String, _ arguments: [String], environment: [String: String] = [:], limit: TimeInterval = 600
  ) throws -> Browser.Run {
    let outputBase = NSTemporaryDirectory() + "workbench-spawn-" + UUID().uuidString
    let stdoutPath = outputBase + ".stdout"
    let stderrPath = outputBase + ".stderr"
    defer {
      unlink(stdoutPath)
      unlink(stderrPath)
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

    var variables = ProcessInfo.processInfo.environment
    variables.merge(environment) { _, given in given }
    let argv = ([program] + arguments).map { strdup($0) } + [nil]
    let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }

    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, program, &actions, &attributes, argv, envp)
    guard spawned == 0 else { throw SpawnError("cannot start \(program): \(String(cString: strerror(spawned)))") }

    var status: Int32 = 0
    var killed = false
    let deadline = Date().addingTimeInterval(limit)
    while true {
      let waited = waitpid(pid, &status, WNOHANG)
      if waited == pid { break }
      if waited < 0 && errno != EINTR {
        throw SpawnError("waiting for \(program): \(String(cString: strerror(errno)))")
      }
      if !killed && Date() >= deadline {
        killed = true
        kill(pid, SIGKILL)
      }
      usleep(10_000)
    }
    let text = { (path: String) in String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
    }
    let exited = (status & 0x7F) == 0
    let code = exited ? (status >> 8) & 0xFF : -(status & 0x7F)
    let stderr = text(stderrPath) + (killed ? "\n\(program) \(arguments) did not end in \(Int(limit)) s; killed" : "")
    return Browser.Run(status: code, stdout: text(stdoutPath), stderr: stderr)
  }
}

public struct SpawnError: Error, CustomStringConvertible {
  public var description: String
  init(_ description: String) { self.description = description }
}
