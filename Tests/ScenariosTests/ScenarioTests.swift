import Capture
import CaptureTesting
import Diagnostics
import Foundation
import Imaging
import JSONCore
import Measurements
import TestSupport
import Testing

@testable import Scenarios

#if canImport(FoundationXML)
  import FoundationXML
#endif

@Suite("Scenario files")
struct ScenarioLoaderTests {
  private func load(_ source: String, name: String = "case.lua") throws -> (TemporaryFolder, Result<[Scenario], Error>)
  {
    let folder = try TemporaryFolder()
    let file = try folder.write(name, source)
    return (folder, Result { try ScenarioRunner.load(file: file) })
  }

  @Test("a scenario: paths relative to its file, settings, faults and expectations")
  func loads() throws {
    let (folder, result) = try load(
      """
      local overtime = 2 * 2
      return {
        name = "flat copy", flow = "../flows/hkid.lua", input = { trace = "t.jsonl" },
        set = { ["hkid.overtime"] = overtime }, seed = 9, lang = "zh-HK",
        faults = { { drop = 0.25 }, { measure = { field = "card.tilt_y", set = 0, from = 1 } }, { unplug = { at = 2 } } },
        expect = { result = { code = 4, reason = "overtime" }, events = { "status:BEGIN" }, absent = { "status:COMPLETE" },
                   count = { ["status:FAR"] = 0 }, within = { ["result:overtime"] = { max = 4.5 } } },
      }
      """)
    defer { folder.remove() }
    let scenario = try #require(try result.get().first)
    #expect(scenario.name == "flat copy")
    #expect(scenario.flow == folder.path + "/../flows/hkid.lua")
    #expect(scenario.input == .file(folder.path + "/t.jsonl"))
    #expect(scenario.settings == ["hkid.overtime=4"])
    #expect(scenario.seed == 9)
    #expect(scenario.language == "zh-HK")
    #expect(scenario.faults.count == 3)
    #expect(scenario.faults.first == .dropRate(0.25))
    #expect(scenario.expectations.code == 4)
    #expect(scenario.expectations.reason == "overtime")
    #expect(scenario.reproduce == "workbench test \(folder.path)/case.lua")
  }

  @Test("a file may return a list; each scenario can be run alone")
  func list() throws {
    let (folder, result) = try load(
      """
      local list = {}
      for i, rate in ipairs { 0.1, 0.2, 0.3 } do
        list[i] = { flow = "f.lua", input = "t.jsonl", faults = { { drop = rate } }, expect = { result = 0 } }
      end
      return list
      """, name: "drops.lua")
    defer { folder.remove() }
    let scenarios = try result.get()
    #expect(scenarios.map(\.name) == ["drops #1", "drops #2", "drops #3"])
    #expect(scenarios[2].reproduce.hasSuffix("drops.lua --only 3"))
  }

  @Test("every mistake is named with the file and key, with a suggestion")
  func mistakes() throws {
    let (folder, result) = try load(
      """
      return { flow = "f.lua", inptu = "x", faults = { { dropp = 0.1 }, { measure = { field = "face.yaw" } } },
               expect = { reslt = 0, events = "status:BEGIN" } }
      """)
    defer { folder.remove() }
    guard case .failure(let error) = result else {
      Issue.record("loaded")
      return
    }
    let text = "\(error)"
    #expect(text.contains("unknown key 'inptu'"), "\(text)")
    #expect(text.contains("did you mean 'input'?") || text.contains("needs input"), "\(text)")
    #expect(text.contains("unknown fault 'dropp'"), "\(text)")
    #expect(text.contains("measure needs exactly one of add = N, scale = N, set = VALUE or remove = true"), "\(text)")
    #expect(text.contains("unknown key 'reslt'"), "\(text)")
    #expect(text.contains("events takes a list of event names"), "\(text)")
  }

  @Test("functions, syntax errors and a missing return are reported")
  func notData() throws {
    let (a, functions) = try load(#"return { flow = "f.lua", input = "t", expect = { result = function() end } }"#)
    defer { a.remove() }
    #expect("\(functions)".contains("functions cannot be part of it"))
    let (b, syntax) = try load("return { flow = ")
    defer { b.remove() }
    #expect("\(syntax)".contains("case.lua:1"))
    let (c, nothing) = try load("local x = 1")
    defer { c.remove() }
    #expect("\(nothing)".contains("must return a scenario table"))
  }
}

@Suite("Expectations")
struct ExpectationTests {
  private func event(_ type: String, _ fields: [(String, JSONValue)], t: Double = 0) -> JSONValue {
    .object(JSONObject([("type", .string(type)), ("t", .number(t)), ("frame", .integer(0))] + fields))
  }

  private var run: [JSONValue] {
    [
      event("status", [("status", "BEGIN")], t: 0), event("hint", [("key", "card.place"), ("text", "Place it")], t: 0),
      event("step", [("name", "flip right"), ("state", "passed")], t: 1.2),
      event("intermediate", [("code", 1), ("reason", "first")], t: 1.2), event("status", [("status", "RESET")], t: 1.3),
      event("result", [("success", false), ("code", 4), ("reason", "overtime")], t: 30),
    ]
  }

  @Test("an ordered subsequence passes; a missing event says where it was expected and what came")
  func ordered() throws {
    var expect = Expectations()
    expect.events = ["status:BEGIN", "step:flip right:passed", "intermediate:first", "result:overtime"]
    expect.code = 4
    #expect(expect.check(events: run, exitStatus: 1).isEmpty)
    expect.events = ["status:BEGIN", "status:RESET", "intermediate:first"]
    let failures = expect.check(events: run, exitStatus: 1)
    #expect(failures.count == 1)
    let failure = try #require(failures.first)
    #expect(failure.contains("expected event 3 of 3, 'intermediate:first', after 'status:RESET'"), "\(failure)")
    #expect(failure.contains("it came earlier, at t=  1.200  intermediate code 1 first"), "\(failure)")
    #expect(failure.contains("around it:"))
  }

  @Test("result = { incomplete = true } holds a recording read short of what its container declared")
  func incompleteRecording() throws {
    let expect = try Expectations.parse(
      .object(JSONObject([("result", .object(JSONObject([("reason", "end_of_input"), ("incomplete", true)])))])),
      file: "s.lua")
    let short = event(
      "result",
      [
        ("success", false), ("code", 1), ("reason", "end_of_input"),
        ("input_incomplete", .object(JSONObject([("frames_declared", 472), ("frames_read", 108)]))),
      ], t: 4.5)
    let whole = event("result", [("success", false), ("code", 1), ("reason", "end_of_input")], t: 19.7)
    #expect(expect.check(events: [short], exitStatus: 1).isEmpty)
    let failures = expect.check(events: [whole], exitStatus: 1)
    #expect(failures.count == 1 && failures[0].hasPrefix("expected the recording to be read short"), "\(failures)")
    #expect(throws: WorkbenchError.self) {
      try Expectations.parse(
        .object(JSONObject([("result", .object(JSONObject([("incomplet", true)])))])), file: "s.lua")
    }
  }

  @Test("result, exit, absent, counts and times")
  func others() {
    var expect = Expectations()
    expect.code = 0
    expect.exit = 0
    expect.absent = ["status:RESET"]
    expect.counts = [("status", .init(min: 3, max: nil))]
    expect.within = [("intermediate:first", .init(min: nil, max: 1.0))]
    let failures = expect.check(events: run, exitStatus: 1)
    #expect(failures.count == 5, "\(failures)")
    #expect(failures[0].hasPrefix("expected result code 0, got t= 30.000  result code 4 overtime"))
    #expect(failures[1] == "expected exit status 0, got 1")
    #expect(failures[2].hasPrefix("expected no 'status:RESET', but it came at t=  1.300  status RESET"))
    #expect(failures[3] == "expected 'status' at least 3 times, got 2")
    #expect(failures[4] == "expected 'intermediate:first' by 1.0 s, it came at 1.2 s")
  }

  private var comparisons: [JSONValue] {
    [
      event("identity", [("operation", "describe"), ("name", "best_shot"), ("source", "face"), ("found", true)]),
      event(
        "identity", [("operation", "verify"), ("user", "man"), ("distance", 0.31), ("threshold", 0.6), ("match", true)]),
      event(
        "identity",
        [("operation", "verify"), ("user", "obama"), ("distance", 0.87), ("threshold", 0.6), ("match", false)]),
    ]
  }

  @Test("match: a user's id, true or false for the last comparison, distance bounds")
  func match() throws {
    func check(_ lua: JSONValue, _ events: [JSONValue]? = nil) throws -> [String] {
      let expect = try Expectations.parse(.object(JSONObject([("match", lua)])), file: "s.lua")
      return expect.check(events: events ?? comparisons, exitStatus: 1)
    }
    #expect(try check("man").isEmpty)
    #expect(try check(.bool(false)).isEmpty)
    #expect(
      try check(.object(JSONObject([("user", "man"), ("distance", .object(JSONObject([("max", 0.4)])))]))).isEmpty)
    #expect(
      try check("obama") == [
        "expected a match with 'obama'; the comparisons: verify 'man' at distance 0.3100 (a match); verify 'obama' at distance 0.8700 (no match)"
      ])
    #expect(
      try check(.bool(true)) == ["expected a match; the last comparison: verify 'obama' at distance 0.8700 (no match)"])
    #expect(
      try check(.object(JSONObject([("match", false), ("distance", .object(JSONObject([("min", 0.9)])))])))
        == ["expected a distance of at least 0.9, got 0.87"])
    #expect(
      try check("man", []) == ["expected a face comparison (verify, identify or compare), none came"])
    #expect(Expectations.matches("identity:verify", comparisons[1]))
    #expect(!Expectations.matches("identity:verify", comparisons[0]))
    #expect(throws: WorkbenchError.self) { try check(.integer(3)) }
  }

  private func record(_ event: String, _ status: String = "SUCCESS", _ code: String? = nil) -> JSONValue {
    .object(
      JSONObject([
        ("event", .string(event)), ("status", .string(status)), ("page", "SCAN"),
        ("statusCode", code.map { .string($0) } ?? .null),
      ]))
  }

  @Test("analytics: records in order, by event, status and code; a missing one says what came around it")
  func analytics() throws {
    let trace = [
      record("INIT"), record("START"), record("IN_PROGRESS", "SUCCESS", "SCAN_DOCUMENT_FRONT_PROCESSED"),
      record("COMPLETE"), record("COMPLETE", "FAILURE", "USER_CANCEL"), record("SKIP", "FAILURE"),
      record("FINISH", "FAILURE", "USER_CANCEL"),
    ]
    let expect = try Expectations.parse(
      .object(
        JSONObject([
          (
            "analytics",
            [
              "INIT", "IN_PROGRESS:SCAN_DOCUMENT_FRONT_PROCESSED", "COMPLETE:SUCCESS", "COMPLETE:FAILURE:USER_CANCEL",
              "SKIP", "FINISH:USER_CANCEL",
            ]
          )
        ])), file: "s.lua")
    #expect(expect.analytics.count == 6)
    #expect(expect.check(events: run, exitStatus: 1, analytics: trace).isEmpty)
    var wrong = expect
    wrong.analytics = ["START", "FINISH:SUCCESS"]
    let failures = wrong.check(events: run, exitStatus: 1, analytics: trace)
    #expect(failures.count == 1)
    let failure = try #require(failures.first)
    #expect(
      failure.contains("expected analytics record 2 of 2, 'FINISH:SUCCESS', after 'START' at START SUCCESS SCAN -"),
      "\(failure)")
    #expect(failure.contains("it never came"), "\(failure)")
    #expect(failure.contains("FINISH FAILURE SCAN USER_CANCEL"), "\(failure)")
    // Without a trace, nothing matches.
    #expect(expect.check(events: run, exitStatus: 1).count == 1)
    do {
      _ = try Expectations.parse(.object(JSONObject([("analytics", ["FINSH:SUCCESS"])])), file: "s.lua")
      Issue.record("parsed")
    } catch {
      #expect("\(error)".contains("'FINSH:SUCCESS' does not start with an analytics event"), "\(error)")
      #expect("\(error)".contains("did you mean 'FINISH'?"), "\(error)")
    }
    #expect(throws: WorkbenchError.self) {
      try Expectations.parse(.object(JSONObject([("analytics", "FINISH")])), file: "s.lua")
    }
  }
}

@Suite("Suite output")
struct SuiteOutputTests {
  private let passed = ScenarioOutcome(
    name: "passes", file: "qa/a.lua", reproduce: "workbench test qa/a.lua", failures: [], error: nil, exitStatus: 0,
    result: "result code 0 passed", eventCount: 9, seconds: 0.25)
  private let failed = ScenarioOutcome(
    name: "fails <badly> & \"loud\"", file: "qa/b.lua", reproduce: "workbench test qa/b.lua",
    failures: ["expected x\n    around it:"],
    error: nil, exitStatus: 1, result: "result code 4 overtime", eventCount: 3, seconds: 0.5)

  @Test("TAP: ok lines, and a YAML block with the failure and the command that reproduces it")
  func tap() {
    #expect(SuiteReport.tap(passed, number: 1) == "ok 1 - passes")
    let text = SuiteReport.tap(failed, number: 2)
    #expect(
      text.hasPrefix("not ok 2 - fails <badly> & \"loud\"\n  ---\n  failures:\n    - expected x\n          around it:"))
    #expect(text.contains("  reproduce: workbench test qa/b.lua\n  ..."))
  }

  @Test("JUnit XML: one suite per file, escaped, failures with their text")
  func junit() throws {
    let xml = SuiteReport.junit([passed, failed])
    #expect(xml.contains(#"<testsuites name="workbench" tests="2" failures="1" errors="0" time="0.750">"#))
    #expect(xml.contains(#"<testcase classname="qa.a" name="passes" file="qa/a.lua" time="0.250"/>"#))
    #expect(xml.contains("name=\"fails &lt;badly&gt; &amp; &quot;loud&quot;\""))
    #expect(xml.contains("<failure message=\"expected x\">expected x\n    around it:\nresult: result code 4 overtime"))
    // Well-formed: Foundation's parser reads it.
    let parser = XMLParser(data: Data(xml.utf8))
    #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
  }

  @Test("a worker's outcome survives the JSON round trip")
  func roundTrip() throws {
    let back = try #require(SuiteReport.outcome(json: SuiteReport.json(failed)))
    #expect(back.name == failed.name)
    #expect(back.failures == failed.failures)
    #expect(back.exitStatus == 1)
  }

  @Test("shards split a suite without overlap or gaps")
  func shards() throws {
    let items = Array(0..<10)
    var seen: [Int] = []
    for k in 1...3 { seen += try #require(Shard.parse("\(k)/3")).select(items) }
    #expect(seen.sorted() == items)
    #expect(Shard.parse("0/3") == nil)
    #expect(Shard.parse("4/3") == nil)
    #expect(Shard.parse("x") == nil)
  }
}

extension ScenarioLoaderTests {
  @Test("a scenario's remove = true parses; remove = false is named as a mistake")
  func removeParses() throws {
    let (folder, result) = try load(
      """
      return { flow = "f.lua", input = "x.jsonl", faults = { { measure = { field = "face.pitch", remove = true, from = 1 } } },
               expect = { result = 0 } }
      """)
    defer { folder.remove() }
    let scenario = try #require(try result.get().first)
    #expect(scenario.faults.contains { if case .measure(_, _, _, .null, 1, _) = $0 { true } else { false } })
    let (other, wrong) = try load(
      """
      return { flow = "f.lua", input = "x.jsonl", faults = { { measure = { field = "face.pitch", remove = false } } },
               expect = { result = 0 } }
      """)
    defer { other.remove() }
    guard case .failure(let error) = wrong else {
      Issue.record("loaded")
      return
    }
    #expect("\(error)".contains("measure's remove takes true"), "\(error)")
  }
}

extension SuiteOutputTests {
  @Test("a load error of several lines is a YAML block, one problem per line")
  func multiLineError() {
    let outcome = ScenarioOutcome(
      name: "bad.lua", file: "bad.lua", reproduce: "workbench test bad.lua", failures: [],
      error: "the scenario file does not load:\nbad.lua (key 'flw'): unknown key 'flw'\n  help: did you mean 'flow'?",
      exitStatus: 2, result: "not run", eventCount: 0, seconds: 0)
    let text = SuiteReport.tap(outcome, number: 1)
    #expect(
      text.contains(
        "  error: |\n    the scenario file does not load:\n    bad.lua (key 'flw'): unknown key 'flw'\n      help: did you mean 'flow'?\n"
      ), "\(text)")
    #expect(!text.contains("\\n"))
  }

  @Test("JUnit class names leave out . and .. (no '..qa.x')")
  func classNames() {
    #expect(SuiteReport.className("../qa/face/nod-edge.lua") == "qa.face.nod-edge")
    #expect(SuiteReport.className("./qa/x.lua") == "qa.x")
    #expect(SuiteReport.className("qa/x.lua") == "qa.x")
  }
}
