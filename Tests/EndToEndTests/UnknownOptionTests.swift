import Foundation
import TestSupport
import Testing

/// An option a command does not have is named, with the nearest it does,
/// before any other complaint about the command line.
@Suite struct UnknownOptionTests {
  private func run(_ arguments: [String]) throws -> Outcome {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    return try workbench(arguments, folder: folder)
  }

  @Test("--language is unknown: did you mean --lang?")
  func language() throws {
    let outcome = try run(
      ["run", "examples/liveness.lua", "--language", "en", "--input", "examples/traces/liveness-pass.jsonl"])
    #expect(outcome.status == 2, "\(outcome)")
    #expect(
      outcome.stderr.contains("unknown option '--language' for 'workbench run': did you mean --lang?"), "\(outcome)")
  }

  @Test("-i is named as unknown, not taken for a missing --input")
  func shortInput() throws {
    let outcome = try run(["run", "examples/liveness.lua", "-i", "examples/traces/liveness-pass.jsonl"])
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains("unknown option '-i' for 'workbench run': did you mean --input?"), "\(outcome)")
    #expect(!outcome.stderr.contains("exactly one of --input"), "\(outcome)")
  }

  @Test("a misspelled option of a nested command, and values that look like options, are told apart")
  func nestedAndValues() throws {
    let typo = try run(["check", "examples/liveness.lua", "--sett", "flow.seed=1"])
    #expect(typo.stderr.contains("unknown option '--sett' for 'workbench check': did you mean --set"), "\(typo)")
    // --seed -1 is a value out of range, not an unknown option -1.
    let negative = try run(
      ["run", "examples/liveness.lua", "--seed", "-1", "--input", "examples/traces/liveness-pass.jsonl"])
    #expect(negative.status == 2, "\(negative)")
    #expect(!negative.stderr.contains("unknown option"), "\(negative)")
    #expect(negative.stderr.contains("flow.seed"), "\(negative)")
  }
}
