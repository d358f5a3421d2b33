import Foundation
import JSONCore
import TestSupport
import Testing

private let liveness = "examples/liveness.lua"
private let passTrace = "examples/traces/liveness-pass.jsonl"
private let slowBlinkTrace = "examples/traces/liveness-slow-blink.jsonl"

@Suite struct RunTests {
  @Test func thePassingTracePasses() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let eventsPath = folder.file("events.jsonl")
    let outcome = try workbench(["run", liveness, "--input", passTrace, "--events", eventsPath], folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    #expect(outcome.stdout.hasPrefix("PASSED  liveness: "))

    let records = try events(eventsPath)
    let session = try #require(records.first)
    #expect(session["type"] == "session")
    #expect(session["flow"] == "liveness")
    #expect(session["file"] == "examples/liveness.lua")
    #expect(session["order"] == ["one face", "face front-on", "blink", "turn left"])
    let passed = records.filter { $0["type"] == "step" && $0["state"] == "passed" }.compactMap {
      $0["name"]?.stringValue
    }
    #expect(passed == ["one face", "face front-on", "blink", "turn left"])
    let end = try result(records)
    #expect(end["success"] == true)
    #expect(end["reason"] == "passed")
    #expect(end["code"] == 0)
    #expect(end["steps_passed"] == 4)
    // Only the temporary file's rename leaves something in the folder.
    #expect(folder.listing.filter { $0.hasSuffix(".tmp") } == [])
  }

  @Test func theSlowBlinkTraceFailsWithAStepTimeout() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let eventsPath = folder.file("events.jsonl")
    let outcome = try workbench(["run", liveness, "--input", slowBlinkTrace, "--events", eventsPath], folder: folder)
    #expect(outcome.status == 1, "\(outcome)")
    #expect(outcome.stdout.contains("FAILED"))
    #expect(outcome.stdout.contains("reason step_timeout"))
    let records = try events(eventsPath)
    let end = try result(records)
    #expect(end["success"] == false)
    #expect(end["reason"] == "step_timeout")
    let failed = try #require(records.last { $0["type"] == "step" })
    #expect(failed["state"] == "failed")
    #expect(failed["name"] == "blink")
    #expect(failed["reason"] == "step_timeout")
  }

  @Test func eventsCanGoToStandardOutput() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(["run", liveness, "--input", passTrace, "--events", "-"], folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    let records = try jsonLines(outcome.stdout)
    #expect(try result(records)["success"] == true)
    // The summary then goes to standard error, out of the way of the events.
    #expect(outcome.stderr.contains("PASSED"))
  }

  @Test(arguments: [passTrace, slowBlinkTrace])
  func theSameTraceGivesByteIdenticalEvents(trace: String) throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let first = folder.file("first.jsonl")
    let second = folder.file("second.jsonl")
    _ = try workbench(["run", liveness, "--input", trace, "--events", first, "--quiet"], folder: folder)
    _ = try workbench(["run", liveness, "--input", trace, "--events", second, "--quiet"], folder: folder)
    let a = try #require(FileManager.default.contents(atPath: first))
    let b = try #require(FileManager.default.contents(atPath: second))
    #expect(a.count > 1000)
    #expect(a == b)
  }

  @Test func hintsComeFromTheChosenLanguagesCatalog() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let zhPath = folder.file("zh.jsonl")
    let enPath = folder.file("en.jsonl")
    let zh = try workbench(
      ["run", liveness, "--input", passTrace, "--events", zhPath, "--lang", "zh-HK"], folder: folder)
    let en = try workbench(["run", liveness, "--input", passTrace, "--events", enPath], folder: folder)
    #expect(zh.status == 0, "\(zh)")
    #expect(en.status == 0, "\(en)")
    let zhCatalog = try catalog("zh-HK")
    let enCatalog = try catalog("en")

    let zhRecords = try events(zhPath)
    let zhHints = zhRecords.filter { $0["type"] == "hint" }
    #expect(zhHints.count >= 4)
    for hint in zhHints {
      let key = try #require(hint["key"]?.stringValue)
      #expect(hint["lang"] == "zh-HK")
      #expect(hint["text"] == zhCatalog[key], "\(key)")
      #expect(hint["text"] != enCatalog[key], "\(key)")
    }
    #expect(zhRecords.first?["lang"] == "zh-HK")
    #expect(try result(zhRecords)["message"] == zhCatalog["result.passed"])

    let enHints = try events(enPath).filter { $0["type"] == "hint" }
    #expect(enHints.map { $0["key"] } == zhHints.map { $0["key"] })
    for hint in enHints {
      #expect(hint["lang"] == "en")
      #expect(hint["text"] == enCatalog[hint["key"]?.stringValue ?? ""])
    }
  }

  @Test func anUnknownLanguageIsAnError() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(["run", liveness, "--input", passTrace, "--lang", "xx", "--quiet"], folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains("messages.language"))
    #expect(outcome.stderr.contains("zh-HK"))
  }

  @Test func aTraceWrittenWithTraceOutReplaysToTheSameEvents() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let seen = folder.file("seen.jsonl")
    let original = folder.file("original.jsonl")
    let replayed = folder.file("replayed.jsonl")
    for trace in [passTrace, slowBlinkTrace] {
      let first = try workbench(
        ["run", liveness, "--input", trace, "--events", original, "--trace-out", seen, "--quiet"], folder: folder)
      let header = try JSONParser.parse(String(try #require(fileText(seen)?.split(separator: "\n").first)))
      #expect(header["workbench_trace"] == 1)
      #expect(header["flow"] == "examples/liveness.lua")
      #expect(header["source"] == .string(trace))

      let second = try workbench(["run", liveness, "--input", seen, "--events", replayed, "--quiet"], folder: folder)
      #expect(second.status == first.status, "\(second)")
      // Byte for byte, except that the session record names its input.
      func withoutInputName(_ path: String) throws -> String {
        let lines = try #require(fileText(path)).split(separator: "\n")
        return lines.dropFirst().joined(separator: "\n")
      }
      #expect(try withoutInputName(original) == (try withoutInputName(replayed)), "\(trace)")
      let sessions = try [original, replayed].map { try #require(try events($0).first) }
      #expect(sessions[0]["input"]?["name"] == .string(trace))
      #expect(sessions[1]["input"]?["name"] == .string(seen))
      #expect(try events(replayed).count > 5)
    }
  }

  @Test func aHugeHintParameterDoesNotCrash() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let eventsPath = folder.file("events.jsonl")
    let outcome = try workbench(
      ["run", "\(fixtures)/huge-hint-parameter.lua", "--input", passTrace, "--events", eventsPath, "--quiet"],
      folder: folder)
    #expect(!outcome.signaled)
    #expect(outcome.status == 0, "\(outcome)")
    let records = try events(eventsPath)
    let hint = try #require(records.first { $0["type"] == "hint" })
    #expect(hint["text"] == "1e+20 s left")
    #expect(try result(records)["success"] == true)
  }

  @Test func aFlowsEventFieldsCannotForgeTheRecordType() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let eventsPath = folder.file("events.jsonl")
    let outcome = try workbench(
      ["run", "\(fixtures)/forged-fields.lua", "--input", passTrace, "--events", eventsPath, "--quiet"], folder: folder)
    #expect(outcome.status == 1, "\(outcome)")
    // events() parses every line strictly: a repeated key would fail here.
    let records = try events(eventsPath)
    let mark = try #require(records.first { $0["type"] == "flow.mark" })
    #expect(mark["note"] == "kept")
    #expect(mark["t"] == 0)
    #expect(mark["frame"] == 0)
    #expect(records.contains { $0["type"] == "status" && $0["status"] == "ODD" })
    let end = try result(records)
    #expect(end["success"] == false)
    #expect(end["reason"] == "forged_step_failed")
  }
}

@Suite struct RandomOrderTests {
  private static let flow = "\(fixtures)/random-pick.lua"
  private static let names: Set<String> = ["alpha", "beta", "gamma"]

  /// Runs the random flow and returns the events text and records.
  private func run(_ extra: [String], folder: TemporaryFolder, name: String) throws -> (String, [JSONValue]) {
    let path = folder.file(name)
    let outcome = try workbench(
      ["run", Self.flow, "--input", passTrace, "--events", path, "--quiet"] + extra, folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    return (try #require(fileText(path)), try events(path))
  }

  /// Checks that the session's order is two different steps of the three,
  /// and that the steps ran in that order.
  private func checkPick(_ records: [JSONValue]) throws -> [String] {
    let session = try #require(records.first)
    #expect(session["type"] == "session")
    let orderValues = try #require(session["order"]?.arrayValue)
    let order = orderValues.compactMap { $0.stringValue }
    #expect(order.count == 2)
    #expect(Set(order).count == 2)
    #expect(Set(order).isSubset(of: Self.names))
    let started = records.filter { $0["type"] == "step" && $0["state"] == "started" }.compactMap {
      $0["name"]?.stringValue
    }
    #expect(started == order)
    let end = try result(records)
    #expect(end["steps"] == 2)
    #expect(end["steps_passed"] == 2)
    return order
  }

  @Test func theSameSeedGivesTheSameEvents() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let (first, records) = try run(["--seed", "7"], folder: folder, name: "a.jsonl")
    let (second, _) = try run(["--seed", "7"], folder: folder, name: "b.jsonl")
    #expect(first == second)
    #expect(records.first?["seed"] == 7)
    _ = try checkPick(records)
  }

  @Test(arguments: [1, 8, 9, 10, 11, 12, 4_294_967_295])
  func anotherSeedGivesAValidPick(seed: Int) throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let (_, records) = try run(["--seed", String(seed)], folder: folder, name: "events.jsonl")
    #expect(records.first?["seed"] == .integer(Int64(seed)))
    _ = try checkPick(records)
  }

  @Test func seedsChangeTheOrder() throws {
    // Across a handful of seeds the order must not always be the same.
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    var orders: Set<[String]> = []
    for seed in 1...6 {
      let (_, records) = try run(["--seed", String(seed)], folder: folder, name: "events-\(seed).jsonl")
      orders.insert(try checkPick(records))
    }
    #expect(orders.count > 1)
  }

  @Test func withoutASeedOneIsDrawnAndReported() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let (_, records) = try run([], folder: folder, name: "events.jsonl")
    let seed = try #require(records.first?["seed"]?.integerValue)
    #expect(seed >= 1 && seed <= 4_294_967_295)
    let order = try checkPick(records)
    // The reported seed reproduces the run.
    let (_, again) = try run(["--seed", String(seed)], folder: folder, name: "again.jsonl")
    #expect(try checkPick(again) == order)
  }
}

/// Traces read as streams: from standard input, and from a pipe another
/// process writes as it measures.
@Suite struct TraceStreamTests {
  private let trace = packageRoot + "/examples/traces/liveness-pass.jsonl"

  @Test func aTraceOnStandardInputRunsAsFromItsFile() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let fromFile = try workbench(
      ["run", "examples/liveness.lua", "--input", trace, "--events", folder.file("file.jsonl")], folder: folder)
    #expect(fromFile.status == 0, "\(fromFile)")
    let fromStandardInput = try Launched(
      ["run", "examples/liveness.lua", "--input", "-", "--events", folder.file("stdin.jsonl")], folder: folder,
      standardInputPath: trace
    ).wait()
    #expect(fromStandardInput.status == 0, "\(fromStandardInput)")
    // The same events, but for the input's name.
    let expected = try #require(fileText(folder.file("file.jsonl"))).replacingOccurrences(
      of: "\"name\":\"examples/traces/liveness-pass.jsonl\"", with: "\"name\":\"-\"")
    #expect(fileText(folder.file("stdin.jsonl")) == expected)
  }

  @Test func aRunFollowsATraceWrittenIntoAPipeAsItComes() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let pipe = folder.file("measurements")
    try #require(mkfifo(pipe, 0o600) == 0)
    let run = try Launched(
      ["run", "examples/liveness.lua", "--input", pipe, "--events", folder.file("e.jsonl")], folder: folder)
    // The writer opens the pipe once the run has; lines then come a few at a
    // time. The run closes the pipe when the flow has passed, before the
    // trace's end: a write then fails (EPIPE), which ends the writing.
    signal(SIGPIPE, SIG_IGN)
    let writer = try #require(FileHandle(forWritingAtPath: pipe))
    let lines = try #require(fileText(trace)).split(separator: "\n", omittingEmptySubsequences: false)
    var written = 0
    for (index, line) in lines.enumerated() {
      do {
        try writer.write(contentsOf: Data((line + (index == lines.count - 1 ? "" : "\n")).utf8))
      } catch {
        break
      }
      written += 1
      if index % 20 == 0 { Thread.sleep(forTimeInterval: 0.005) }
    }
    try? writer.close()
    #expect(written > 10)
    let outcome = run.wait()
    #expect(outcome.status == 0, "\(outcome)")
    #expect(outcome.stdout.contains("PASSED"), "\(outcome)")
    let records = try events(folder.file("e.jsonl"))
    #expect(records.first?["input"]?["kind"] == "trace")
  }

  @Test func aLineWithoutItsEndOnStandardInputIsStillRead() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    var text = try #require(fileText(trace))
    while text.hasSuffix("\n") { text.removeLast() }
    let input = try folder.write("no-newline.jsonl", text.replacingOccurrences(of: "\n", with: "\r\n"))
    let outcome = try Launched(
      ["run", "examples/liveness.lua", "--input", "-", "--quiet"], folder: folder, standardInputPath: input
    ).wait()
    #expect(outcome.status == 0, "\(outcome)")
  }
}
