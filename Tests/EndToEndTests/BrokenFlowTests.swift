import Foundation
import JSONCore
import TestSupport
import Testing

/// A flow that must stop the run with a script error.
struct BrokenFlow: CustomTestStringConvertible, Sendable {
  var name: String
  /// Lines the error may point at (a limit can strike anywhere in a loop).
  var lines: ClosedRange<Int>
  var reason: String
  /// Text the message on standard error must contain.
  var message: String

  var file: String { "\(fixtures)/\(name).lua" }
  var testDescription: String { name }
}

@Suite struct BrokenFlowTests {
  static let flows: [BrokenFlow] = [
    BrokenFlow(name: "syntax-error", lines: 6...6, reason: "script_error", message: "unexpected symbol near 'then'"),
    BrokenFlow(name: "runtime-error", lines: 6...6, reason: "script_error", message: "attempt to index a nil value"),
    BrokenFlow(name: "endless-loop", lines: 8...8, reason: "limit_exceeded", message: "instruction limit exceeded"),
    BrokenFlow(name: "swallow-limit", lines: 8...12, reason: "limit_exceeded", message: "instruction limit exceeded"),
    BrokenFlow(name: "unbounded-memory", lines: 9...13, reason: "limit_exceeded", message: "memory limit exceeded"),
    BrokenFlow(name: "os-execute", lines: 8...8, reason: "script_error", message: "os.execute is not available"),
    BrokenFlow(name: "io-open", lines: 8...8, reason: "script_error", message: "'io' is not available"),
    BrokenFlow(name: "pathological-pattern", lines: 8...8, reason: "script_error", message: "pattern"),
  ]

  @Test(arguments: flows)
  func aBrokenFlowExits2AndStillWritesAResult(flow: BrokenFlow) throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let eventsPath = folder.file("events.jsonl")
    let outcome = try workbench(
      ["run", flow.file, "--input", "examples/traces/liveness-pass.jsonl", "--events", eventsPath, "--quiet"],
      folder: folder)
    #expect(!outcome.signaled, "\(outcome)")
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains("error: \(flow.file):"), "\(outcome)")
    #expect(outcome.stderr.contains(flow.message), "\(outcome)")
    let mentioned = lines(of: flow.file, in: outcome.stderr)
    #expect(!mentioned.isEmpty && flow.lines.contains(mentioned[0]), "lines \(mentioned)\n\(outcome)")

    let records = try events(eventsPath)
    let end = try result(records)
    #expect(end["success"] == false)
    #expect(end["reason"] == .string(flow.reason))
    #expect(end["code"] == -2)
    let error = try #require(end["error"]?.stringValue)
    #expect(error.hasPrefix(flow.file + ":"))
    #expect(error.contains(flow.message))
    #expect(folder.listing.filter { $0.hasSuffix(".tmp") } == [])
  }

  @Test func theSandboxRanNoShellCommand() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let marker = packageRoot + "/workbench-should-not-exist"
    _ = try workbench(
      ["run", "\(fixtures)/os-execute.lua", "--input", "examples/traces/liveness-pass.jsonl", "--quiet"], folder: folder
    )
    #expect(!FileManager.default.fileExists(atPath: marker))
  }

  @Test func aStepErrorShowsATraceback() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(
      ["run", "\(fixtures)/runtime-error.lua", "--input", "examples/traces/liveness-pass.jsonl", "--quiet"],
      folder: folder)
    #expect(outcome.status == 2)
    #expect(outcome.stderr.contains("stack traceback:"))
    // Frames of the step library are left out.
    #expect(!outcome.stderr.contains("plugins/wb/"))
  }

  @Test func theLimitsCanBeRaisedOrLoweredWithSet() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let eventsPath = folder.file("events.jsonl")
    let outcome = try workbench(
      [
        "run", "\(fixtures)/endless-loop.lua", "--input", "examples/traces/liveness-pass.jsonl", "--events", eventsPath,
        "--quiet", "--set", "lua.instruction_limit=20000",
      ], folder: folder)
    #expect(outcome.status == 2)
    #expect(outcome.stderr.contains("20000 instructions"), "\(outcome)")
    #expect(try result(events(eventsPath))["reason"] == "limit_exceeded")
  }
}
