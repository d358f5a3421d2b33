import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A one-node Slurm cluster in a temporary folder, started and stopped by
/// scripts/slurm-cluster, for tests of batch jobs: submit jobs with
/// `sbatch`, wait until they have left the queue, and read how each ended.
/// It knows nothing of what the jobs run.
///
///     let cluster = try SlurmCluster.start()
///     defer { cluster.stop() }
///     let shards = try cluster.submitArray(tasks: 4, running: "date > $SLURM_ARRAY_TASK_ID.txt", in: folder)
///     let merge = try cluster.submit(running: "cat *.txt > all.txt", after: [shards], in: folder)
///     try cluster.waitUntilDone([shards, merge])
///
/// A job's command line is run by /bin/sh in the job, with the test
/// process's environment (sbatch passes it on) and Slurm's variables.
///
/// The daemons run as root (slurmd starts each job as its user), so
/// ``available`` needs root as well as the programs; on CI (``required``) a
/// test that needs the cluster fails where it would be skipped elsewhere.
public struct SlurmCluster: Sendable {
  public static let script = packageRootPath + "/scripts/slurm-cluster"
  public static let installCommand = "scripts/install-test-deps"

  /// The programs the script and this type run.
  static let programs = ["munged", "slurmctld", "slurmd", "sinfo", "sbatch", "squeue", "scontrol", "scancel"]

  /// On CI (CI set, and not "false" or "0") a test that needs the cluster must run.
  public static var required: Bool { ContinuousIntegration.isRunning }

  public static var available: Bool { problem == nil }

  /// Why no cluster can start here, naming what to do; nil when one can.
  public static var problem: String? {
    let missing = programs.filter { executable($0) == nil }
    if !missing.isEmpty {
      return "Slurm is not installed (missing \(missing.joined(separator: ", "))): run \(installCommand)"
    }
    if getuid() != 0 { return "a Slurm cluster needs root: slurmd starts each job as its user" }
    return nil
  }

  /// The folder that holds the cluster: slurm.conf, the munge key, state, logs.
  public let folder: TemporaryFolder
  /// The path of its slurm.conf, which every Slurm command is given as SLURM_CONF.
  public let configuration: String

  /// Starts a cluster in a new temporary folder and waits until its node is
  /// idle; throws with ``problem`` when it cannot, or with the script's
  /// message (which ends with the daemons' logs) when the start fails.
  public static func start() throws -> SlurmCluster {
    if let problem { throw SlurmClusterError(problem) }
    let folder = try TemporaryFolder(prefix: "workbench-slurm")
    let run = try Spawn.run(script, ["start", folder.path])
    let line = run.stdout.split(whereSeparator: \.isNewline).last { $0.hasPrefix("SLURM_CONF=") }
    guard run.status == 0, let line else {
      _ = try? Spawn.run(script, ["stop", folder.path])
      folder.remove()
      throw SlurmClusterError("scripts/slurm-cluster start failed (exit \(run.status)):\n\(run.stderr)")
    }
    return SlurmCluster(folder: folder, configuration: String(line.dropFirst("SLURM_CONF=".count)))
  }

  /// Cancels what is still queued, stops the daemons and waits for them to
  /// exit, and deletes the folder. Safe to call twice.
  public func stop() {
    _ = try? Spawn.run(Self.script, ["stop", folder.path])
    folder.remove()
  }

  /// One `sbatch` submission: a shell command line (`--wrap`, run by /bin/sh
  /// in the job) and the options the tests use.
  public struct Job: Sendable {
    public var command: String
    /// `--array`, e.g. "0-3": one task per index, each with `SLURM_ARRAY_TASK_ID` set.
    public var array: String?
    /// `--dependency=afterok:ID:ID`: starts only after these jobs (every task of an array) succeeded.
    public var afterSuccessOf: [Int]
    /// `--chdir`: the folder the command runs in.
    public var workingDirectory: String?
    /// `--output`, with sbatch's patterns (`%A` the array's job id, `%a` the task index, `%j` the job id).
    public var output: String?
    public var name: String?

    public init(
      _ command: String, array: String? = nil, afterSuccessOf: [Int] = [], workingDirectory: String? = nil,
      output: String? = nil, name: String? = nil
    ) {
      self.command = command
      self.array = array
      self.afterSuccessOf = afterSuccessOf
      self.workingDirectory = workingDirectory
      self.output = output
      self.name = name
    }

    var arguments: [String] {
      var arguments = ["--parsable"]
      if let name { arguments.append("--job-name=" + name) }
      if let array { arguments.append("--array=" + array) }
      if !afterSuccessOf.isEmpty {
        arguments.append("--dependency=afterok:" + afterSuccessOf.map(String.init).joined(separator: ":"))
      }
      if let workingDirectory { arguments.append("--chdir=" + workingDirectory) }
      if let output { arguments.append("--output=" + output) }
      return arguments + ["--wrap", command]
    }
  }

  /// Submits `job` and returns its job id (for an array, the array's).
  @discardableResult
  public func submit(_ job: Job) throws -> Int {
    let run = try slurm("sbatch", job.arguments)
    // --parsable prints "ID" or "ID;CLUSTER".
    let field = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ";").first
    guard run.status == 0, let id = field.flatMap({ Int($0) }) else {
      throw SlurmClusterError("sbatch \(job.arguments) failed (exit \(run.status)): \(run.stdout)\(run.stderr)")
    }
    return id
  }

  /// An array of `tasks` tasks (indices 0 to tasks - 1) that each run
  /// `command` in `folder`, where `$SLURM_ARRAY_TASK_ID` is the task's
  /// index; each task's output goes to `slurm-ARRAY_TASK.out` there.
  public func submitArray(tasks: Int, running command: String, in folder: String) throws -> Int {
    precondition(tasks > 0, "an array has at least one task")
    let output = folder + "/slurm-%A_%a.out"
    return try submit(Job(command, array: "0-\(tasks - 1)", workingDirectory: folder, output: output))
  }

  /// A job that runs `command` in `folder` once every job in `jobs` has
  /// succeeded; its output goes to `slurm-ID.out` there.
  public func submit(running command: String, after jobs: [Int], in folder: String) throws -> Int {
    try submit(Job(command, afterSuccessOf: jobs, workingDirectory: folder, output: folder + "/slurm-%j.out"))
  }

  /// Waits until none of `jobs` is in the queue (pending or running). A job
  /// whose dependency can never be met stays pending, so the wait has a
  /// generous limit, past which it throws with the queue and the logs.
  public func waitUntilDone(_ jobs: [Int], limit: TimeInterval = 300) throws {
    let list = jobs.map(String.init).joined(separator: ",")
    let deadline = Date().addingTimeInterval(limit)
    var queued = ""
    while Date() < deadline {
      let run = try slurm("squeue", ["-h", "-j", list, "-o", "%i %T %r"])
      queued = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
      // squeue names a job it no longer knows an invalid id: it has left the queue.
      if queued.isEmpty && (run.status == 0 || run.stderr.contains("Invalid job id")) { return }
      Thread.sleep(forTimeInterval: 0.2)
    }
    throw SlurmClusterError("jobs \(list) still queued after \(Int(limit)) s:\n\(queued)\n\(logTails())")
  }

  /// How one job, or one task of an array, ended, as `scontrol show job` reports it.
  public struct JobRecord: Sendable, Equatable {
    public var id: Int
    /// The array's job id and this task's index, for a task of an array.
    public var arrayJobID: Int?
    public var arrayTaskID: Int?
    /// COMPLETED, FAILED, CANCELLED, TIMEOUT, PENDING, RUNNING, ...
    public var state: String
    /// "status:signal", "0:0" for a success.
    public var exitCode: String
  }

  /// The records of `job`: one, or one per task of an array (by task index).
  /// The controller keeps a finished job's record for a few minutes (MinJobAge).
  public func records(of job: Int) throws -> [JobRecord] {
    let run = try slurm("scontrol", ["show", "job", "--oneliner", String(job)])
    guard run.status == 0 else {
      throw SlurmClusterError("scontrol show job \(job) failed (exit \(run.status)): \(run.stderr)")
    }
    return run.stdout.split(whereSeparator: \.isNewline).compactMap { line in
      let fields = Self.fields(line)
      guard let id = fields["JobId"].flatMap({ Int($0) }), let state = fields["JobState"] else { return nil }
      return JobRecord(
        id: id, arrayJobID: fields["ArrayJobId"].flatMap { Int($0) },
        arrayTaskID: fields["ArrayTaskId"].flatMap { Int($0) }, state: state, exitCode: fields["ExitCode"] ?? "")
    }.sorted { ($0.arrayTaskID ?? 0, $0.id) < ($1.arrayTaskID ?? 0, $1.id) }
  }

  /// The last lines of each daemon's log, for a failure's message.
  public func logTails(lines: Int = 20) -> String {
    ["munged.log", "slurmctld.log", "slurmd.log"].map { name in
      let path = folder.file("log/" + name)
      let text = String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
      let tail = text.split(whereSeparator: \.isNewline).suffix(lines).joined(separator: "\n")
      return "--- \(name):\n\(tail)"
    }.joined(separator: "\n")
  }

  /// Runs a Slurm command against this cluster (SLURM_CONF set for it alone).
  public func slurm(_ program: String, _ arguments: [String]) throws -> Browser.Run {
    guard let path = Self.executable(program) else {
      throw SlurmClusterError("\(program) is not installed: run \(Self.installCommand)")
    }
    return try Spawn.run(path, arguments, environment: ["SLURM_CONF": configuration])
  }

  /// `Key=Value` fields of a `--oneliner` record; a value ends at the next
  /// space (the fields read here hold none).
  static func fields(_ line: Substring) -> [String: String] {
    var fields: [String: String] = [:]
    for word in line.split(separator: " ") {
      guard let equals = word.firstIndex(of: "=") else { continue }
      let key = String(word[..<equals])
      if fields[key] == nil { fields[key] = String(word[word.index(after: equals)...]) }
    }
    return fields
  }

  /// A program on PATH or in the sbin folders, where Debian puts the daemons
  /// and which a user's PATH may lack.
  static func executable(_ name: String) -> String? {
    if let found = Browser.executable([name]) { return found }
    return ["/usr/sbin", "/usr/local/sbin"].map { "\($0)/\(name)" }.first {
      FileManager.default.isExecutableFile(atPath: $0)
    }
  }
}

public struct SlurmClusterError: Error, CustomStringConvertible {
  public var description: String
  init(_ description: String) { self.description = description }
}
