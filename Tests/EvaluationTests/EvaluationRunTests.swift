import Diagnostics
import Estimators
import Flows
import Foundation
import JSONCore
import Logging
import RunComposition
import Session
import TestSupport
import Testing

@testable import Evaluation

/// Workbench's own estimators, counting how often a session asks for them:
/// a session over a kept measurement asks for none.
final class CountingEstimators: EstimatorProvider {
  private(set) var requests = 0
  private let standard = StandardEstimators()

  func estimators(for flow: LoadedFlow, also: [String], logger: Logger) -> [any Estimator] {
    requests += 1
    return standard.estimators(for: flow, also: also, logger: logger)
  }
}

/// A flow that reads one measurement of the built-in quality estimators,
/// and a corpus of JPEG folders (recordings) measured by them: real
/// decoding and measuring, without the face backend.
struct SharpnessCorpus {
  let folder: TemporaryFolder
  let flow: String
  let manifest: String

  init() throws {
    folder = try TemporaryFolder(prefix: "eval-tests")
    flow = try folder.write(
      "sharp.lua",
      """
      local wb = require "wb"
      local S = wb.settings {
        ["sharp.min"] = { type = "number", default = 0.5, min = 0, max = 1, doc = "Lowest quality.blur" },
      }
      return wb.flow {
        name = "sharp",
        steps = { wb.threshold { name = "sharp enough", field = "quality.blur", above = S.sharp.min, crossing = false, timeout = 10 } },
      }
      """)
    let frames = packageRootPath + "/Tests/Fixtures/frames/"
    for (name, files) in [("a", ["0001.jpg", "0002.jpg"]), ("b", ["0003.jpg", "0027.jpg"]), ("c", ["0040.jpg"])] {
      let recording = try folder.subfolder("sessions/" + name)
      for (index, file) in files.enumerated() {
        try FileManager.default.copyItem(
          atPath: frames + file, toPath: recording + String(format: "/%04d.jpg", index + 1))
      }
    }
    _ = try folder.write("sessions/broken.avi", "RIFF not really an AVI")
    manifest = try folder.write(
      "corpus.jsonl",
      """
      {"input":"sessions/a","label":"bona_fide","id":"a"}
      {"input":"sessions/b","label":"attack","species":"print","id":"b"}
      {"input":"sessions/c","label":"attack","species":"replay","id":"c"}
      {"input":"sessions/broken.avi","label":"bona_fide","id":"broken"}

      """)
  }

  func options(out: String) -> EvaluationOptions {
    var options = EvaluationOptions(flow: RunSettings.flowOptions(flow), corpusPath: manifest, outFolder: out)
    options.cacheFolder = folder.file("cache")
    return options
  }

  func text(_ path: String) -> String {
    String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
  }
}

@Suite(.serialized) struct EvaluationRunTests {
  let logger = Logger(label: "eval-tests")

  @Test func aSecondEvaluationMeasuresNothingAndGivesTheSameBytes() throws {
    let corpus = try SharpnessCorpus()
    defer { corpus.folder.remove() }
    let first = CountingEstimators()
    let outcome = Evaluation.run(corpus.options(out: corpus.folder.file("one")), logger: logger, estimators: first)
    #expect(outcome.status == .passed, "\(outcome.problems)")
    #expect(first.requests == 4, "three recordings and the broken file are measured")
    #expect(outcome.measured == 4)

    let second = CountingEstimators()
    let again = Evaluation.run(corpus.options(out: corpus.folder.file("two")), logger: logger, estimators: second)
    #expect(again.status == .passed)
    #expect(second.requests == 1, "only the broken file, which left no measurement, is tried again")
    for file in [Evaluation.sessionsFile, Evaluation.summaryFile] {
      #expect(corpus.text(corpus.folder.file("one/" + file)) == corpus.text(corpus.folder.file("two/" + file)))
    }
    let records = SessionLog.read(corpus.folder.file("two/sessions.jsonl"))
    #expect(records.map(\.id) == ["a", "b", "broken", "c"])
    let broken = try #require(records.first { $0.id == "broken" })
    #expect(broken.decision == .none)
    #expect(broken.error?.contains("broken.avi") == true, "\(broken.error ?? "")")
    #expect(records.filter { $0.id != "broken" }.allSatisfy { $0.decision != .none && $0.decidedAt != nil })
  }

  @Test func aSweepMeasuresEachInputOnceAndReplaysEveryPoint() throws {
    let corpus = try SharpnessCorpus()
    defer { corpus.folder.remove() }
    var options = corpus.options(out: corpus.folder.file("sweep"))
    options.grid = SettingsGrid(axes: [try SettingsGrid.axis("sharp.min=0:1:0.25")])
    options.score = try ScoreSpec("quality.blur:max")
    options.targetAPCER = 0.5
    let counting = CountingEstimators()
    let outcome = Evaluation.run(options, logger: logger, estimators: counting)
    #expect(outcome.status == .passed, "\(outcome.problems)")
    // Three recordings measured once each; the broken file is tried at every point.
    #expect(counting.requests == 3 + 5)
    let summary = try #require(outcome.summary)
    let points = try #require(summary["points"]?.arrayValue)
    #expect(points.count == 5)
    #expect(points.map { $0["settings"]?["sharp.min"]?.doubleValue } == [0, 0.25, 0.5, 0.75, 1])
    // At 0 every frame passes: every attack is accepted; at 1 none is.
    #expect(points.first?["apcer_max"] == .number(1))
    #expect(points.last?["apcer_max"] == .number(0))
    #expect(points.last?["bpcer"] == .number(1))
    #expect(summary["front"]?.arrayValue?.isEmpty == false)
    #expect(points.allSatisfy { $0["scores"]?["det"]?.arrayValue?.isEmpty == false })
    let records = SessionLog.read(corpus.folder.file("sweep/sessions.jsonl"))
    #expect(records.count == 4 * 5)
  }

  @Test func everySessionStartsFromTheFlowAsLoadedWhateverTheSessionBeforeChanged() throws {
    let corpus = try SharpnessCorpus()
    defer { corpus.folder.remove() }
    // Sessions share one load per settings point; a step that changes the
    // file's own state, the step library's module and a global must not
    // let the next session see it.
    let counting = try corpus.folder.write(
      "counting.lua",
      """
      local wb = require "wb"
      local sessions = 0
      local S = wb.settings {
        ["sharp.min"] = { type = "number", default = 0.5, min = 0, max = 1, doc = "Lowest quality.blur" },
      }
      return wb.flow {
        name = "counting",
        steps = { wb.step { name = "first session", needs = { "quality.blur" }, timeout = 10,
          update = function(self, m, ctx)
            if not rawget(ctx, "counted") then
              ctx.counted = true
              sessions = sessions + 1
              leaked = (leaked or 0) + 1
              rawset(wb, "leaked", (rawget(wb, "leaked") or 0) + 1)
            end
            if sessions == 1 and leaked == 1 and rawget(wb, "leaked") == 1 and S.sharp.min <= 1 then return true end
            return false
          end } },
      }
      """)
    var options = corpus.options(out: corpus.folder.file("counting"))
    options.flow = RunSettings.flowOptions(counting)
    options.grid = SettingsGrid(axes: [try SettingsGrid.axis("sharp.min=0.2,0.8")])
    let outcome = Evaluation.run(options, logger: logger)
    #expect(outcome.status == .passed, "\(outcome.problems)")
    let records = SessionLog.read(corpus.folder.file("counting/sessions.jsonl"))
    #expect(records.count == 8)
    let made = records.filter { $0.id != "broken" }
    #expect(made.count == 6)
    #expect(made.allSatisfy { $0.decision == .accepted }, "\(made.map { "\($0.id): \($0.reason)" })")
  }

  @Test func aKeptMeasurementChangedByHandIsReplayedAsItIsNow() throws {
    let corpus = try SharpnessCorpus()
    defer { corpus.folder.remove() }
    // Measured, then replayed: the replay keeps a binary form beside each entry.
    for out in ["one", "two"] {
      #expect(Evaluation.run(corpus.options(out: corpus.folder.file(out)), logger: logger).status == .passed)
    }
    let cache = corpus.folder.file("cache")
    let files = try FileManager.default.subpathsOfDirectory(atPath: cache)
    let entries = files.filter { $0.hasSuffix(".jsonl") }
    #expect(entries.count == 3)
    #expect(files.filter { $0.hasSuffix(".replay") }.count == 3)
    #expect(SessionLog.read(corpus.folder.file("two/sessions.jsonl")).contains { $0.decision == .accepted })
    // Every frame made blurred: no session can pass now.
    for entry in entries {
      let path = cache + "/" + entry
      let text = corpus.text(path)
      let blurred = text.replacing(/"blur":[0-9.eE+-]+/, with: "\"blur\":0")
      #expect(blurred != text)
      try blurred.write(toFile: path, atomically: true, encoding: .utf8)
    }
    #expect(Evaluation.run(corpus.options(out: corpus.folder.file("three")), logger: logger).status == .passed)
    let records = SessionLog.read(corpus.folder.file("three/sessions.jsonl"))
    #expect(records.count == 4)
    #expect(!records.contains { $0.decision == .accepted }, "\(records.map { "\($0.id): \($0.reason)" })")
  }

  @Test func aFlowsOwnScoreIsTheSessionsScoreUnlessTheCommandLineGivesOne() throws {
    let corpus = try SharpnessCorpus()
    defer { corpus.folder.remove() }
    let scored = try corpus.folder.write(
      "scored.lua",
      """
      local wb = require "wb"
      return wb.flow {
        name = "sharp-scored",
        steps = { wb.step { name = "look", needs = { "quality.blur" }, timeout = 10,
          update = function(self, m, ctx)
            ctx.sharpest = math.max(rawget(ctx, "sharpest") or 0, m.quality.blur)
            if m.quality.blur > 0.5 then return true end
          end } },
        score = function(flow, ctx, result) return rawget(ctx, "sharpest") end,
      }
      """)
    var options = corpus.options(out: corpus.folder.file("flow-score"))
    options.flow = RunSettings.flowOptions(scored)
    let byFlow = Evaluation.run(options, logger: logger)
    #expect(byFlow.status == .passed, "\(byFlow.problems)")
    #expect(byFlow.summary?["score"] == "flow")
    #expect(byFlow.summary?["scores"]?["det"]?.arrayValue?.isEmpty == false)
    let flowScores = SessionLog.read(corpus.folder.file("flow-score/sessions.jsonl"))
    #expect(flowScores.filter { $0.id != "broken" }.allSatisfy { $0.score != nil })

    // The same aggregate from the command line: the same frames, the same scores.
    options.outFolder = corpus.folder.file("field-score")
    options.score = try ScoreSpec("quality.blur:max")
    let byField = Evaluation.run(options, logger: logger)
    #expect(byField.summary?["score"] == "quality.blur:max")
    let fieldScores = SessionLog.read(corpus.folder.file("field-score/sessions.jsonl"))
    #expect(fieldScores.map(\.score) == flowScores.map(\.score))
  }

  @Test func ratesAreTheCountsOfTheRecordsAndTheirIntervalsClopperPearson() throws {
    let corpus = try SharpnessCorpus()
    defer { corpus.folder.remove() }
    var options = corpus.options(out: corpus.folder.file("rates"))
    options.flow.assignments += ["sharp.min=0.6"]
    let outcome = Evaluation.run(options, logger: logger)
    let summary = try #require(outcome.summary)
    let records = SessionLog.read(corpus.folder.file("rates/sessions.jsonl"))
    try RateCheck.expectRates(summary, countedFrom: records)
  }

  @Test func shardsMergedGiveTheUnshardedSummaryByteForByte() throws {
    let corpus = try SharpnessCorpus()
    defer { corpus.folder.remove() }
    var whole = corpus.options(out: corpus.folder.file("whole"))
    whole.grid = SettingsGrid(axes: [try SettingsGrid.axis("sharp.min=0.3,0.7")])
    #expect(Evaluation.run(whole, logger: logger).status == .passed)
    var folders: [String] = []
    for index in 1...3 {
      var shard = whole
      shard.outFolder = corpus.folder.file("shard-\(index)")
      shard.shard = (index, 3)
      #expect(Evaluation.run(shard, logger: logger).status == .passed)
      folders.append(shard.outFolder)
    }
    let merged = Evaluation.merge(folders, into: corpus.folder.file("merged"))
    #expect(merged.status == .passed, "\(merged.problems)")
    for file in [Evaluation.summaryFile, Evaluation.sessionsFile] {
      #expect(corpus.text(corpus.folder.file("merged/" + file)) == corpus.text(corpus.folder.file("whole/" + file)))
    }
    let twice = Evaluation.merge([folders[0], folders[0]], into: corpus.folder.file("twice"))
    #expect(twice.status == .usage)
    #expect(twice.problems.contains { $0.message.contains("is also in") })
  }

  @Test func resumeKeepsTheFinishedSessionsAndDropsACutLine() throws {
    let corpus = try SharpnessCorpus()
    defer { corpus.folder.remove() }
    let out = corpus.folder.file("run")
    #expect(Evaluation.run(corpus.options(out: out), logger: logger).status == .passed)
    let complete = corpus.text(out + "/" + Evaluation.sessionsFile)
    let lines = complete.split(separator: "\n")
    // As a kill leaves it: two whole sessions and half of the third.
    try (lines[0] + "\n" + lines[1] + "\n" + lines[2].prefix(20)).write(
      toFile: out + "/" + Evaluation.sessionsFile, atomically: true, encoding: .utf8)
    var options = corpus.options(out: out)
    options.resume = true
    let counting = CountingEstimators()
    let resumed = Evaluation.run(options, logger: logger, estimators: counting)
    #expect(resumed.status == .passed)
    #expect(resumed.sessionsRun == 2)
    #expect(corpus.text(out + "/" + Evaluation.sessionsFile) == complete)
    #expect(corpus.text(out + "/" + Evaluation.runFile).contains("\"resumed\": 2"))
  }

  @Test func aSettingTheFlowDoesNotDeclareStopsBeforeAnythingRuns() throws {
    let corpus = try SharpnessCorpus()
    defer { corpus.folder.remove() }
    var options = corpus.options(out: corpus.folder.file("bad"))
    options.grid = SettingsGrid(axes: [try SettingsGrid.axis("sharp.minn=0.3,0.7")])
    let outcome = Evaluation.run(options, logger: logger)
    #expect(outcome.status == .usage)
    #expect(outcome.problems.contains { $0.message.contains("sharp.minn") })
    #expect(!FileManager.default.fileExists(atPath: corpus.folder.file("bad/sessions.jsonl")))
  }
}

/// Recounts the rates from the records, as a reader of sessions.jsonl would.
enum RateCheck {
  static func expectRates(_ summary: JSONValue, countedFrom records: [SessionRecord]) throws {
    func rate(_ errors: Int, _ trials: Int) -> JSONValue {
      trials == 0 ? .null : .number((Double(errors) / Double(trials)).roundedToMicroseconds)
    }
    let bonaFide = records.filter { $0.label == .bonaFide }
    let decidedBonaFide = bonaFide.filter { $0.decision != .none }
    #expect(summary["bpcer"] == rate(decidedBonaFide.filter { $0.decision == .rejected }.count, decidedBonaFide.count))
    #expect(summary["bpnrr"] == rate(bonaFide.filter { $0.decision == .none }.count, bonaFide.count))
    let attacks = records.filter { $0.label == .attack }
    #expect(summary["apnrr"] == rate(attacks.filter { $0.decision == .none }.count, attacks.count))
    var worst = -1.0
    for species in Set(attacks.compactMap(\.species)) {
      let decided = attacks.filter { $0.species == species && $0.decision != .none }
      let expected = rate(decided.filter { $0.decision == .accepted }.count, decided.count)
      #expect(summary["apcer"]?[species] == expected, "\(species)")
      worst = max(worst, expected.doubleValue ?? -1)
    }
    #expect(summary["apcer_max"]?.doubleValue == worst)
    let interval = try #require(summary["bpcer_ci"]?.arrayValue)
    #expect(interval.count == 2)
    #expect(interval[0].doubleValue! <= summary["bpcer"]!.doubleValue!)
    #expect(interval[1].doubleValue! >= summary["bpcer"]!.doubleValue!)
  }
}
