import Foundation
import JSONCore
import TestSupport
import Testing

/// `workbench eval` on the bundled corpus (examples/eval): every rate of
/// `summary.json` is the count done here from `sessions.jsonl`, and every
/// interval is Clopper–Pearson as SciPy computes it now, at every point of
/// a sweep.
@Suite(.enabled(if: ScientificPython.runs, Comment(rawValue: ScientificPython.skipReason)))
struct EvalExampleTests {
  /// Errors in trials of one rate, by its key in a point (`apcer.print` for a species).
  struct Count {
    var key: String
    var errors: Int
    var trials: Int
  }

  @Test func theExampleSummaryIsTheHandCountOfItsSessionsWithSciPysIntervals() throws {
    let work = try TemporaryFolder(prefix: "workbench-eval-example")
    defer { work.remove() }
    let run = try workbench(
      [
        "eval", "examples/liveness-blink.lua", "examples/eval/corpus.jsonl", "--out", work.file("out"),
        "--cache", work.file("cache"), "--sweep", "liveness.blink_max_ms=100,700", "--quiet",
      ], folder: work)
    #expect(run.status == 0, "\(run)")
    let summary = try JSONParser.parse(try #require(fileText(work.file("out/summary.json"))))
    let points = try #require(summary["points"]?.arrayValue)
    try #require(points.count == 2)
    let lines = try #require(fileText(work.file("out/sessions.jsonl"))).split(separator: "\n")
    let records = try lines.map { try JSONParser.parse(String($0)) }
    #expect(records.count == 2 * 14)

    var counts: [Count] = []
    for (index, point) in points.enumerated() {
      let settings = try #require(point["settings"])
      let mine = records.filter { $0["settings"] == settings }
      #expect(mine.count == 14, "point \(index)")
      let pointCounts = Self.count(mine)
      for count in pointCounts {
        let expected = Double(count.errors) / Double(count.trials)
        let reported = Self.value(point, count.key)?.doubleValue ?? -1
        #expect(abs(reported - expected) <= 1e-6, "\(count.key) at point \(index): \(reported), counted \(expected)")
      }
      let species = pointCounts.filter { $0.key.hasPrefix("apcer.") }
      let worst = species.map { Double($0.errors) / Double($0.trials) }.max()
      #expect(point["apcer_max"]?.doubleValue.map { abs($0 - (worst ?? -1)) < 1e-6 } == true)
      counts += pointCounts.map { Count(key: "\(index):\($0.key)", errors: $0.errors, trials: $0.trials) }
    }
    // The points differ: a blink of at most 100 ms rejects the bona fide who blink for longer.
    #expect(points[0]["bpcer"] != points[1]["bpcer"])

    var input: [Double] = []
    for count in counts { input += [Double(count.errors), Double(count.trials)] }
    let reference = try ScientificPython.numbers(
      """
      from scipy.stats import beta
      for i in range(0, len(numbers), 2):
          x, n = int(numbers[i]), int(numbers[i + 1])
          emit(0.0 if x == 0 else beta.ppf(0.025, x, n - x + 1))
          emit(1.0 if x == n else beta.ppf(0.975, x + 1, n - x))
      """, input: input)
    try #require(reference.count == 2 * counts.count)
    for (offset, count) in counts.enumerated() {
      let parts = count.key.split(separator: ":", maxSplits: 1)
      let point = points[Int(parts[0])!]
      let interval = try #require(Self.value(point, String(parts[1]) + "_ci")?.arrayValue, "\(count.key)_ci")
      #expect(abs((interval[0].doubleValue ?? -1) - reference[2 * offset]) <= 1e-6, "\(count.key) low")
      #expect(abs((interval[1].doubleValue ?? -1) - reference[2 * offset + 1]) <= 1e-6, "\(count.key) high")
    }
  }

  /// The rates of one point's records, counted as ISO/IEC 30107-3 counts them.
  static func count(_ records: [JSONValue]) -> [Count] {
    func decision(_ record: JSONValue) -> String { record["decision"]?.stringValue ?? "" }
    let bonaFide = records.filter { $0["label"] == "bona_fide" }
    let attacks = records.filter { $0["label"] == "attack" }
    let decidedBonaFide = bonaFide.filter { decision($0) != "none" }
    var counts = [
      Count(
        key: "bpcer", errors: decidedBonaFide.filter { decision($0) == "rejected" }.count,
        trials: decidedBonaFide.count),
      Count(key: "bpnrr", errors: bonaFide.filter { decision($0) == "none" }.count, trials: bonaFide.count),
      Count(key: "apnrr", errors: attacks.filter { decision($0) == "none" }.count, trials: attacks.count),
    ]
    for species in Set(attacks.compactMap { $0["species"]?.stringValue }).sorted() {
      let decided = attacks.filter { $0["species"]?.stringValue == species && decision($0) != "none" }
      counts.append(
        Count(
          key: "apcer." + species, errors: decided.filter { decision($0) == "accepted" }.count,
          trials: decided.count))
    }
    return counts.filter { $0.trials > 0 }
  }

  /// `apcer.print` → point["apcer"]["print"]; `apcer.print_ci` → point["apcer_ci"]["print"].
  static func value(_ point: JSONValue, _ key: String) -> JSONValue? {
    guard let dot = key.firstIndex(of: ".") else { return point[key] }
    let species = key[key.index(after: dot)...]
    let suffix = species.hasSuffix("_ci") ? "_ci" : ""
    return point[String(key[..<dot]) + suffix]?[String(species.dropLast(suffix.count))]
  }
}
