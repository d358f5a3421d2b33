import Foundation
import JSONCore
import TestSupport
import Testing

@Suite("Outputs and where workbench runs from")
struct OutputTests {
  let pass = "examples/traces/liveness-pass.jsonl"

  @Test func traceOutIntoAMissingFolderIsAUsageErrorAndTheEventsStillEndWithAResult() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let eventsPath = folder.file("events.jsonl")
    let outcome = try workbench(
      [
        "run", "examples/liveness.lua", "--input", pass, "--events", eventsPath, "--trace-out",
        folder.file("missing/seen.jsonl"), "--quiet",
      ],
      folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains("missing/seen.jsonl"), "\(outcome)")
    #expect(outcome.stderr.contains("does not exist"), "\(outcome)")
    // Reported once, as an output problem, not as a flow script error.
    #expect(outcome.stderr.components(separatedBy: "does not exist").count == 2, "\(outcome)")
    let records = try events(eventsPath)
    #expect(records.count == 1)
    #expect(records.last?["reason"] == "output_error")
  }

  @Test func anOutputThatIsADeviceOrAPipeIsWrittenInPlaceNotReplacedByAFile() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let pipe = folder.file("events.pipe")
    #expect(mkfifo(pipe, 0o600) == 0)
    // The reader takes what the run writes, as a shell's `>(...)` would.
    let reader = Thread {
      let descriptor = open(pipe, O_RDONLY)
      guard descriptor >= 0 else { return }
      var bytes: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 4096)
      while true {
        let count = read(descriptor, &buffer, buffer.count)
        if count <= 0 { break }
        bytes += buffer[0..<count]
      }
      close(descriptor)
      FileManager.default.createFile(atPath: pipe + ".got", contents: Data(bytes))
    }
    reader.start()
    let outcome = try workbench(
      ["run", "examples/liveness.lua", "--input", pass, "--events", pipe, "--quiet"], folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    var status = stat()
    #expect(stat(pipe, &status) == 0 && (status.st_mode & S_IFMT) == S_IFIFO, "the pipe is still a pipe")
    for _ in 0..<100 where !FileManager.default.fileExists(atPath: pipe + ".got") { usleep(20_000) }
    let got = try #require(fileText(pipe + ".got"))
    #expect(got.contains("\"type\":\"result\""), "\(got)")
  }

  /// Every output that fills the disk, on a flow that passes and on one
  /// that fails: both promise a complete record, so both are exit 2.
  @Test(arguments: [
    (["--events", "/dev/full"], "liveness-pass"), (["--trace-out", "/dev/full"], "liveness-pass"),
    (["--events", "/dev/full"], "liveness-slow-blink"), (["--trace-out", "/dev/full"], "liveness-slow-blink"),
    (["--events", "-"], "liveness-pass"), (["--events", "-"], "liveness-slow-blink"),
  ])
  func anOutputThatCannotBeWrittenIsAnOutputErrorNotAPassOrAFail(_ output: [String], trace: String) throws {
    var status = stat()
    try #require(stat("/dev/full", &status) == 0 && (status.st_mode & S_IFMT) == S_IFCHR, "/dev/full is a device")
    let folder = try TemporaryFolder()
    defer {
      folder.remove()
      // Were /dev/full ever replaced by a file, put the device back.
      var after = stat()
      if stat("/dev/full", &after) == 0, (after.st_mode & S_IFMT) != S_IFCHR {
        unlink("/dev/full")
        mknod("/dev/full", S_IFCHR | 0o666, dev_t(1 << 8 | 7))
      }
    }
    let toStandardOutput = output == ["--events", "-"]
    let outcome = try Launched(
      ["run", "examples/liveness.lua", "--input", "examples/traces/\(trace).jsonl", "--quiet"] + output,
      folder: folder, standardOutputPath: toStandardOutput ? "/dev/full" : nil
    ).wait()
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains(toStandardOutput ? "standard output" : "/dev/full"), "\(outcome)")
    #expect(outcome.stderr.contains("No space left on device"), "\(outcome)")
    #expect(stat("/dev/full", &status) == 0 && (status.st_mode & S_IFMT) == S_IFCHR)
  }

  @Test(arguments: [
    ["--events", "@input"], ["--trace-out", "@input"], ["--events", "@same", "--trace-out", "@same"],
  ])
  func anOutputThatWouldOverwriteAnotherFileIsRefused(_ extra: [String]) throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let input = folder.file("input.jsonl")
    try FileManager.default.copyItem(atPath: packageRoot + "/" + pass, toPath: input)
    let original = try #require(FileManager.default.contents(atPath: input))
    let arguments = extra.map { $0 == "@input" ? input : $0 == "@same" ? folder.file("out.jsonl") : $0 }
    let outcome = try workbench(
      ["run", "examples/liveness.lua", "--input", input, "--quiet"] + arguments, folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains("would overwrite"), "\(outcome)")
    #expect(FileManager.default.contents(atPath: input) == original)
  }

  @Test func startedByNameFromAnotherFolderItStillFindsItsConfigsAndPlugins() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try Launched(
      ["run", packageRoot + "/examples/liveness.lua", "--input", packageRoot + "/" + pass, "--quiet"],
      folder: folder, workingDirectory: folder.path, throughPath: true
    ).wait()
    #expect(outcome.status == 0, "\(outcome)")
  }

  @Test func statusFieldsInAnyOrderGiveTheSameBytes() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let flow = try folder.write(
      "status.lua",
      """
      local wb = require "wb"
      return wb.flow { name = "status", steps = { function(m, ctx)
        ctx.status("X", { delta = 4, alpha = 1, charlie = 3, bravo = 2, echo = { z = 1, y = 2 } })
        return true
      end } }
      """)
    var outputs = Set<String>()
    for run in 0..<4 {
      let eventsPath = folder.file("events-\(run).jsonl")
      let outcome = try workbench(["run", flow, "--input", pass, "--events", eventsPath, "--quiet"], folder: folder)
      #expect(outcome.status == 0, "\(outcome)")
      outputs.insert(fileText(eventsPath) ?? "")
    }
    #expect(outputs.count == 1)
    #expect(
      outputs.first?.contains(#""status":"X","alpha":1,"bravo":2,"charlie":3,"delta":4,"echo":{"y":2,"z":1}"#) == true)
  }
}

@Suite("Where problems are reported")
struct ProblemPositionTests {
  @Test func aFolderGivenAsAnOutputIsRefusedBeforeTheRun() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let out = try folder.subfolder("out")
    let outcome = try workbench(
      ["run", "examples/liveness.lua", "--input", "examples/traces/liveness-pass.jsonl", "--events", out],
      folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains("is a folder, not a file"), "\(outcome)")
    #expect(!outcome.stdout.contains("PASSED"), "\(outcome)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: out).isEmpty)
  }

  @Test func mistakesInAPlainTableFlowAreReportedAtTheFlowsOwnLine() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let flow = try folder.write(
      "plain.lua",
      """
      local wb = require "wb"
      return {
        name = "plain",
        time_limt = 10,
        steps = { wb.threshold { name = "turn", field = "face.yaw", above = 20 } },
      }
      """)
    let outcome = try workbench(["check", flow], folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains("plain.lua:4: wb.flow: unknown field 'time_limt'"), "\(outcome)")
    #expect(!outcome.stderr.contains("plugins/wb"), "\(outcome)")
  }

  @Test func aFieldOfTheFlowTableIsFoundInsideTheTableNotInAStepAbove() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let flow = try folder.write(
      "wrongline.lua",
      """
      local wb = require "wb"
      local turn = wb.threshold { name = "turn", field = "face.yaw", above = 20 }
      return wb.flow {
        steps = { turn },
        name = 42,
      }
      """)
    let outcome = try workbench(["check", flow], folder: folder)
    #expect(outcome.stderr.contains("wrongline.lua:5: wb.flow: field 'name' must be a string"), "\(outcome)")
  }
}
