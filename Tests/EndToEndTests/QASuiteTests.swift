import Foundation
import TestSupport
import Testing

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// `workbench test` on the regression suite in examples/qa.
@Suite struct QASuiteTests {
  @Test func theRegressionSuitePassesAndWritesJUnit() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let junit = folder.file("junit.xml")
    let outcome = try workbench(["test", "examples/qa", "--jobs", "2", "--junit", junit], folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    let lines = outcome.stdout.split(separator: "\n")
    #expect(lines.first == "TAP version 14")
    let plan = try #require(lines.dropFirst().first)
    let total = try #require(Int(plan.dropFirst(3)))
    #expect(total >= 25)
    #expect(lines.filter { $0.hasPrefix("ok ") }.count == total, "\(outcome)")
    #expect(!outcome.stdout.contains("not ok"))
    let xml = try #require(fileText(junit))
    #expect(
      xml.contains("<testsuites name=\"workbench\" tests=\"\(total)\" failures=\"0\" errors=\"0\""),
      "\(xml.prefix(300))")
    #expect(XMLParser(data: Data(xml.utf8)).parse())
  }

  /// Every bundled face flow passes on the scene made for it and fails, with
  /// the reason it should, on others (examples/qa/face-scenes).
  @Test func theFaceFlowsOnFaceScenes() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(
      ["test", "examples/qa/face-scenes"], folder: folder, environment: ["WORKBENCH_SYNTH_CACHE": folder.file("cache")])
    #expect(outcome.status == 0, "\(outcome)")
    for flow in ["liveness", "liveness-blink", "liveness-random", "best-shot"] {
      let lines = outcome.stdout.split(separator: "\n").filter { $0.contains(" - \(flow): ") }
      #expect(lines.count >= 2, "\(flow): \(outcome)")
      #expect(lines.allSatisfy { $0.hasPrefix("ok ") })
    }
    #expect(outcome.stdout.contains("ok 3 - best-shot: two faces are 1003"), "\(outcome)")
  }

  @Test func breakingAThresholdFailsTheRightScenariosWithAReadableDiff() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    // A copy of the card flows and their scenarios, with the flip angle out of reach.
    let copy = try folder.subfolder("examples")
    for item in ["hkid.lua", "hkid-2018.lua", "hkid-2003.lua", "traces", "qa"] {
      try FileManager.default.copyItem(atPath: packageRoot + "/examples/" + item, toPath: copy + "/" + item)
    }
    let library = copy + "/hkid.lua"
    let source = try #require(fileText(library))
    let broken = source.replacingOccurrences(
      of: #"["hkid.flip_angle"] = { type = "number", default = 25,"#,
      with: #"["hkid.flip_angle"] = { type = "number", default = 60,"#)
    #expect(broken != source)
    try broken.write(toFile: library, atomically: true, encoding: .utf8)

    let outcome = try workbench(["test", copy + "/qa/card"], folder: folder)
    #expect(outcome.status == 1, "\(outcome)")
    func line(_ name: String) -> String? {
      outcome.stdout.split(separator: "\n").first { $0.hasSuffix(" - " + name) }.map(String.init)
    }
    #expect(line("HKID 2018: right, back, left, back passes")?.hasPrefix("not ok") == true, "\(outcome)")
    #expect(line("HKID 2003: up, back, down, back passes")?.hasPrefix("not ok") == true)
    // The scenarios that expect no flip still pass.
    #expect(line("HKID 2018: a flat copy held still ends in overtime")?.hasPrefix("ok") == true, "\(outcome)")
    #expect(line("HKID 2018: a flip the wrong way does not count")?.hasPrefix("ok") == true)
    // The diff says what was expected, what came instead, and how to run it alone.
    #expect(outcome.stdout.contains("'intermediate:first'"), "\(outcome)")
    #expect(outcome.stdout.contains("it never came"))
    #expect(outcome.stdout.contains("around it:"))
    #expect(outcome.stdout.contains("reproduce: workbench test \(copy)/qa/card/hkid-2018-pass.lua"))
    #expect(outcome.stdout.contains("# failed: HKID 2018: right, back, left, back passes: workbench test"))
  }

  @Test func shardsSplitTheSuite() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    var names: [String] = []
    for k in 1...2 {
      let outcome = try workbench(["test", "examples/qa/card", "--shard", "\(k)/2"], folder: folder)
      #expect(outcome.status == 0, "\(outcome)")
      names += outcome.stdout.split(separator: "\n").filter { $0.hasPrefix("ok ") }.map {
        String($0.split(separator: " - ", maxSplits: 1).last ?? "")
      }
    }
    let all = try workbench(["test", "examples/qa/card"], folder: folder)
    let every = all.stdout.split(separator: "\n").filter { $0.hasPrefix("ok ") }.map {
      String($0.split(separator: " - ", maxSplits: 1).last ?? "")
    }
    #expect(names.sorted() == every.sorted())
    #expect(Set(names).count == names.count)
  }

  @Test func aBrokenScenarioFileIsNamedAndExitsWith2() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let file = try folder.write(
      "broken.lua", #"return { flow = "../examples/hkid-2018.lua", input = "x.jsonl", expect = { reslt = 0 } }"#)
    let outcome = try workbench(["test", file], folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stdout.contains("not ok 1 - broken.lua"), "\(outcome)")
    #expect(outcome.stdout.contains("\(file) (key 'expect.reslt'): unknown key 'reslt'"), "\(outcome)")
  }
}

extension QASuiteTests {
  /// A scenario whose input is missing is the scenario's mistake: exit 2,
  /// not a failed run (exit 1), with the path it looked for.
  @Test func aMissingInputIsALoadErrorNotAFailure() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let scenario = try folder.write(
      "missing.lua",
      """
      return { name = "missing input", flow = "\(packageRoot)/examples/liveness.lua", input = "nothere.jsonl",
               expect = { result = 0 } }
      """)
    let outcome = try workbench(["test", scenario], folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stdout.contains("nothere.jsonl does not exist"), "\(outcome)")
    #expect(outcome.stdout.contains("result: not run"), "\(outcome)")
  }
}
