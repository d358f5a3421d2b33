import Foundation
import JSONCore
import TestSupport
import Testing

/// The package root: the working directory of every run.
let packageRoot = packageRootPath

/// Fixture flows, relative to the package root (the working directory of every run).
let fixtures = "Tests/EndToEndTests/Fixtures"

/// The built `workbench` binary: next to the test bundle (.build/<triple>/debug/),
/// else .build/debug/workbench under the package root.
let workbenchBinary: String? = builtExecutable("workbench")

/// A built executable of the package, found as ``workbenchBinary`` is.
func builtExecutable(_ name: String) -> String? {
  var folders: [URL] = []
  if let first = CommandLine.arguments.first {
    folders.append(URL(fileURLWithPath: first).resolvingSymlinksInPath().deletingLastPathComponent())
  }
  if let executable = Bundle.main.executableURL {
    folders.append(executable.resolvingSymlinksInPath().deletingLastPathComponent())
  }
  // On macOS the tests live in a .xctest bundle inside the build folder.
  folders.append(Bundle.main.bundleURL.deletingLastPathComponent())
  for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
    folders.append(bundle.bundleURL.deletingLastPathComponent())
  }
  folders.append(URL(fileURLWithPath: packageRoot + "/.build/debug"))
  for folder in folders {
    let candidate = folder.appendingPathComponent(name).path
    if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
  }
  return nil
}

/// What a finished run of the binary left behind.
struct Outcome: CustomStringConvertible {
  var status: Int32
  var stdout: String
  var stderr: String
  var signaled: Bool

  var description: String { "exit \(status)\(signaled ? " (signal)" : "")\nstdout:\n\(stdout)\nstderr:\n\(stderr)" }
}

/// How SIGINT and SIGTERM are set in the mask the child starts with.
enum InterruptMask {
  /// Unblocked, as from a shell in a terminal. The test runner's threads
  /// (libdispatch workers) block nearly every signal, and a child inherits that.
  case unblocked
  /// Blocked, as from a parent that blocks them (a dispatch worker thread).
  case blocked
}

/// A running `workbench` process (or another executable of the package)
/// with its output going to files.
final class Launched {
  let process = Process()
  private let stdoutPath: String
  private let stderrPath: String

  /// `throughPath` starts it as a shell would: by name, found on PATH.
  /// `standardOutputPath` sends its standard output there (`/dev/full`) instead of to a file the outcome reads;
  /// `executable` names another built executable of the package to start (the soak benchmark);
  /// `standardInputPath` is read as its standard input (otherwise it reads nothing).
  /// `environment` adds to or (with nil) removes from the test runner's
  /// environment; runs check the process-wide ``TestLicense`` unless it says otherwise.
  init(
    _ arguments: [String], folder: TemporaryFolder, interrupts: InterruptMask = .unblocked,
    workingDirectory: String = packageRoot, throughPath: Bool = false, environment overrides: [String: String?] = [:],
    standardOutputPath: String? = nil, executable: String = "workbench", standardInputPath: String? = nil
  ) throws {
    let binary = try #require(
      executable == "workbench" ? workbenchBinary : builtExecutable(executable),
      "the \(executable) binary was not found; run swift build --build-tests")
    let id = UUID().uuidString
    stdoutPath = folder.path + "/stdout-\(id).txt"
    stderrPath = folder.path + "/stderr-\(id).txt"
    _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
    _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
    var environment = ProcessInfo.processInfo.environment
    if throughPath {
      process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      process.arguments = ["workbench"] + arguments
      let binaryFolder = URL(fileURLWithPath: binary).deletingLastPathComponent().path
      environment["PATH"] = binaryFolder + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
    } else {
      process.executableURL = URL(fileURLWithPath: binary)
      process.arguments = arguments
    }
    process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory)
    environment.removeValue(forKey: "WORKBENCH_HOME")
    environment.removeValue(forKey: "WORKBENCH_LICENSE_PUBLIC_KEY")
    environment["WORKBENCH_LICENSE_CONFIG"] = TestLicense.files.config
    // The user's and the machine's settings folders, and the user's data
    // (the default gallery) and cache, are the test's own (empty unless it
    // writes them), never this machine's.
    environment["XDG_CONFIG_HOME"] = folder.path + "/xdg-config"
    environment["XDG_DATA_HOME"] = folder.path + "/xdg-data"
    environment["XDG_CACHE_HOME"] = folder.path + "/xdg-cache"
    environment["WORKBENCH_SYSTEM_CONFIG"] = folder.path + "/etc-workbench"
    for (name, value) in overrides { environment[name] = value }
    process.environment = environment
    process.standardInput = standardInputPath.flatMap { FileHandle(forReadingAtPath: $0) } ?? FileHandle.nullDevice
    process.standardOutput = FileHandle(forWritingAtPath: standardOutputPath ?? stdoutPath)
    process.standardError = FileHandle(forWritingAtPath: stderrPath)
    // The child inherits the signal mask of the thread that spawns it.
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGINT)
    sigaddset(&signals, SIGTERM)
    var previous = sigset_t()
    pthread_sigmask(interrupts == .blocked ? SIG_BLOCK : SIG_UNBLOCK, &signals, &previous)
    defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
    try process.run()
  }

  var isRunning: Bool { process.isRunning }

  /// What it has written to standard output so far.
  var outputSoFar: String { fileText(stdoutPath) ?? "" }

  /// What it has written to standard error so far.
  var errorSoFar: String { fileText(stderrPath) ?? "" }

  /// Waits for the process; a run that hangs is killed after a generous
  /// safety limit so that the suite cannot hang (this is not a timing check).
  func wait(safetyLimit: TimeInterval = 300, sourceLocation: SourceLocation = #_sourceLocation) -> Outcome {
    let deadline = Date().addingTimeInterval(safetyLimit)
    while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
    if process.isRunning {
      Issue.record("workbench \(process.arguments ?? []) did not finish; killed", sourceLocation: sourceLocation)
      process.terminate()
      Thread.sleep(forTimeInterval: 0.5)
      if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
    process.waitUntilExit()
    return Outcome(
      status: process.terminationStatus,
      stdout: String(decoding: FileManager.default.contents(atPath: stdoutPath) ?? Data(), as: UTF8.self),
      stderr: String(decoding: FileManager.default.contents(atPath: stderrPath) ?? Data(), as: UTF8.self),
      signaled: process.terminationReason == .uncaughtSignal)
  }
}

/// Runs `workbench` with `arguments` in the package root and waits for it.
func workbench(
  _ arguments: [String], folder: TemporaryFolder, environment: [String: String?] = [:],
  sourceLocation: SourceLocation = #_sourceLocation
) throws -> Outcome {
  try Launched(arguments, folder: folder, environment: environment).wait(sourceLocation: sourceLocation)
}

func fileText(_ path: String) -> String? {
  FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
}

/// The records of an events file, checking that it is complete JSON Lines:
/// it ends with a newline and every line is one JSON object with a type.
func events(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [JSONValue] {
  let text = try #require(fileText(path), "no events file at \(path)", sourceLocation: sourceLocation)
  return try jsonLines(text, sourceLocation: sourceLocation)
}

func jsonLines(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [JSONValue] {
  try #require(!text.isEmpty, "no events", sourceLocation: sourceLocation)
  #expect(text.hasSuffix("\n"), "the last line is not complete", sourceLocation: sourceLocation)
  var records: [JSONValue] = []
  for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
    let record = try JSONParser.parse(String(line))
    #expect(record.objectValue?.keys.prefix(3) == ["type", "t", "frame"], "\(line)", sourceLocation: sourceLocation)
    records.append(record)
  }
  return records
}

/// The last record, which must be the `result`.
func result(_ records: [JSONValue], sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
  let last = try #require(records.last, sourceLocation: sourceLocation)
  #expect(last["type"] == "result", sourceLocation: sourceLocation)
  #expect(
    records.dropLast().allSatisfy { $0["type"] != "result" }, "a result before the last line",
    sourceLocation: sourceLocation)
  return last
}

/// The texts of a shipped message catalog.
func catalog(_ language: String) throws -> JSONObject {
  let text = try #require(fileText(packageRoot + "/configs/messages/\(language).json"))
  return try #require(try JSONParser.parse(text).objectValue)
}

/// The line numbers that `file:LINE:` mentions of `name` give in `text`.
func lines(of name: String, in text: String) -> [Int] {
  var found: [Int] = []
  var rest = Substring(text)
  while let range = rest.range(of: name + ":") {
    rest = rest[range.upperBound...]
    let digits = rest.prefix { $0.isNumber }
    if let line = Int(digits), rest.dropFirst(digits.count).first == ":" { found.append(line) }
  }
  return found
}
