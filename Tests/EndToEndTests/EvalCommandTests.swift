import Foundation
import JSONCore
import TestSupport
import Testing

/// `workbench eval` as a user runs it: exit codes, Ctrl-C and --resume,
/// --jobs, the corpus's mistakes all at once.
@Suite struct EvalCommandTests {
  /// A flow that never decides before the input ends, and `count` traces
  /// of `frames` frames each: long enough to interrupt.
  private func slowCorpus(_ folder: TemporaryFolder, count: Int, frames: Int) throws -> (flow: String, corpus: String) {
    let flow = try folder.write(
      "never.lua",
      """
      local wb = require "wb"
      return wb.flow {
        name = "never",
        steps = { wb.threshold { name = "never", field = "face.yaw", above = 90, crossing = false } },
      }
      """)
    var manifest = ""
    for index in 0..<count {
      var trace = "{\"workbench_trace\":1}\n"
      for frame in 0..<frames { trace += "{\"t\":\(Double(frame) / 30),\"face\":{\"count\":1,\"yaw\":\(index % 7)}}\n" }
      _ = try folder.write("traces/\(index).jsonl", trace)
      let label = index % 2 == 0 ? "\"label\":\"bona_fide\"" : "\"label\":\"attack\",\"species\":\"print\""
      manifest += "{\"input\":\"traces/\(index).jsonl\",\(label)}\n"
    }
    return (flow, try folder.write("corpus.jsonl", manifest))
  }

  @Test func ctrlCKeepsTheFinishedSessionsAndResumeGoesOn() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let (flow, corpus) = try slowCorpus(folder, count: 60, frames: 3000)
    let out = folder.file("out")
    let launched = try Launched(["eval", flow, corpus, "--out", out], folder: folder)
    let deadline = Date().addingTimeInterval(120)
    while launched.isRunning && Date() < deadline
      && (fileText(out + "/sessions.jsonl") ?? "").split(separator: "\n").count < 2
    {
      Thread.sleep(forTimeInterval: 0.01)
    }
    #expect(launched.isRunning, "the evaluation ended before it could be interrupted")
    launched.process.interrupt()
    let stopped = launched.wait()
    #expect(stopped.status == 130, "\(stopped)")
    #expect(stopped.stderr.contains("--resume"), "\(stopped)")
    let kept = try #require(fileText(out + "/sessions.jsonl"))
    #expect(kept.hasSuffix("\n"))
    let keptCount = kept.split(separator: "\n").count
    #expect(keptCount >= 2 && keptCount < 60)
    for line in kept.split(separator: "\n") { #expect((try? JSONParser.parse(String(line))) != nil) }
    #expect(fileText(out + "/run.json")?.contains("\"finished\": false") == true)
    #expect(!FileManager.default.fileExists(atPath: out + "/summary.json"))

    let resumed = try workbench(["eval", flow, corpus, "--out", out, "--resume", "--quiet"], folder: folder)
    #expect(resumed.status == 0, "\(resumed)")
    #expect(fileText(out + "/run.json")?.contains("\"resumed\": \(keptCount)") == true)
    let straight = try workbench(["eval", flow, corpus, "--out", folder.file("straight"), "--quiet"], folder: folder)
    #expect(straight.status == 0)
    #expect(fileText(out + "/sessions.jsonl") == fileText(folder.file("straight/sessions.jsonl")))
    #expect(fileText(out + "/summary.json") == fileText(folder.file("straight/summary.json")))
  }

  @Test func twoJobsGiveTheResultsOfOne() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let (flow, corpus) = try slowCorpus(folder, count: 9, frames: 40)
    let one = try workbench(
      ["eval", flow, corpus, "--out", folder.file("one"), "--sweep", "flow.time_limit=0,1", "--quiet"], folder: folder)
    #expect(one.status == 0, "\(one)")
    let two = try workbench(
      ["eval", flow, corpus, "--out", folder.file("two"), "--sweep", "flow.time_limit=0,1", "--jobs", "2", "--quiet"],
      folder: folder)
    #expect(two.status == 0, "\(two)")
    for file in ["sessions.jsonl", "summary.json"] {
      #expect(fileText(folder.file("one/" + file)) == fileText(folder.file("two/" + file)), "\(file)")
    }
    #expect(!FileManager.default.fileExists(atPath: folder.file("two/.workers")))
  }

  @Test func everyMistakeOfTheCorpusIsNamedAndNothingRuns() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let corpus = try folder.write(
      "corpus.jsonl",
      """
      {"input":"nothere.avi","label":"bona_fide"}
      {"input":"\(packageRoot)/examples/traces/liveness-pass.jsonl","label":"attack"}

      """)
    let outcome = try workbench(
      ["eval", "examples/liveness.lua", corpus, "--out", folder.file("out")], folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains("corpus.jsonl:1: the input nothere.avi does not exist"), "\(outcome)")
    #expect(outcome.stderr.contains("corpus.jsonl:2: an attack needs its \"species\""), "\(outcome)")
    #expect(!FileManager.default.fileExists(atPath: folder.file("out/sessions.jsonl")))
  }

  @Test func noPointMeetingTheTargetExitsOne() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let corpus = try folder.write(
      "corpus.jsonl",
      """
      {"input":"\(packageRoot)/examples/traces/liveness-pass.jsonl","label":"attack","species":"replay"}
      {"input":"\(packageRoot)/examples/traces/liveness-slow-blink.jsonl","label":"bona_fide"}

      """)
    let outcome = try workbench(
      ["eval", "examples/liveness.lua", corpus, "--out", folder.file("out"), "--target-apcer", "0.01"], folder: folder)
    #expect(outcome.status == 1, "\(outcome)")
    #expect(outcome.stdout.contains("APCER replay           100.0%"), "\(outcome)")
    #expect(fileText(folder.file("out/summary.json"))?.contains("\"chosen\": null") == true)
  }
}
