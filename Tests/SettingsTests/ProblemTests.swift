import Diagnostics
import JSONCore
import Settings
import Testing

@Suite struct ProblemTests {
  @Test func unknownKeySuggestsTheClosestKey() throws {
    let (_, problems) = try resolveSet("flow.time_limt", "20")
    #expect(problems.map(\.message) == ["unknown setting 'flow.time_limt' (from --set)"])
    #expect(problems.first?.help == "did you mean 'flow.time_limit'?")
    #expect(problems.first?.location == SourceLocation(file: "--set", key: "flow.time_limt"))
  }

  @Test func unknownKeyWithoutItsGroupFindsTheSetting() throws {
    let (_, problems) = try resolveSet("time_limit", "20")
    #expect(problems.first?.help == "did you mean 'flow.time_limit'?")
  }

  @Test func unknownKeySuggestsAtMostThree() throws {
    var builder = try SettingsBuilder(declarations: [
      .integer("a.b1", default: 0, doc: "One."), .integer("a.b2", default: 0, doc: "Two."),
      .integer("a.b3", default: 0, doc: "Three."), .integer("a.b4", default: 0, doc: "Four."),
      .integer("zzz.far_away", default: 0, doc: "Far."),
    ])
    builder.assign("a.b", .integer(1), source: .configFile("my.json"))
    let problems = builder.resolve().problems
    #expect(problems.first?.help == "did you mean 'a.b1', 'a.b2' or 'a.b3'?")
  }

  @Test func unknownKeyWithNothingCloseSaysHowToList() throws {
    let (_, problems) = try resolveSet("network.proxy", "x")
    #expect(problems.first?.message == "unknown setting 'network.proxy' (from --set)")
    #expect(problems.first?.help?.contains("run 'workbench settings FLOW' to list them") == true)
  }

  @Test func outOfRangeNamesRangeUnitAndLayer() throws {
    let (settings, problems) = try resolveSet("flow.time_limit", "500")
    #expect(settings.number("flow.time_limit") == 30)
    #expect(
      problems.map(\.message) == [
        "setting 'flow.time_limit' = 500 is out of range: allowed 0 ... 300 s (from --set)"
      ])
    #expect(problems.first?.help == "use a value in 0 ... 300 s (the default is 30 s)")
  }

  @Test(arguments: [
    (SettingSource.configs("configs/settings.json"), "configs/settings.json"),
    (SettingSource.flow("examples/blink.lua", line: 12), "flow examples/blink.lua"),
    (SettingSource.configFile("my.json"), "--config my.json"),
  ])
  func outOfRangeNamesEachLayer(source: SettingSource, layerText: String) throws {
    var builder = try makeBuilder()
    builder.assign("capture.buffer_size", .integer(4096), source: source)
    let problems = builder.resolve().problems
    #expect(
      problems.map(\.message) == [
        "setting 'capture.buffer_size' = 4096 is out of range: allowed 1 ... 1024 MiB (from \(layerText))"
      ])
    #expect(
      problems.first?.location == SourceLocation(file: source.origin!, line: source.line, key: "capture.buffer_size"))
  }

  @Test func wrongJSONTypesAreNamed() throws {
    var builder = try makeBuilder()
    let source = SettingSource.configFile("my.json")
    builder.assign("flow.time_limit", .string("abc"), source: source)
    builder.assign("flow.retries", .number(2.5), source: source)
    builder.assign("report.include_frames", .string("yes"), source: source)
    builder.assign("report.title", .integer(7), source: source)
    builder.assign("camera.facing", .null, source: source)
    builder.assign("detector.threshold", .array([0.1, 0.2]), source: source)
    let problems = builder.resolve().problems
    #expect(
      problems.map(\.message) == [
        #"setting 'flow.time_limit' must be a number (seconds), got string "abc" (from --config my.json)"#,
        "setting 'flow.retries' must be an integer, got number 2.5 (from --config my.json)",
        #"setting 'report.include_frames' must be a boolean, got string "yes" (from --config my.json)"#,
        "setting 'report.title' must be a string, got integer 7 (from --config my.json)",
        "setting 'camera.facing' must be one of 'front', 'back', 'external', got null (from --config my.json)",
        "setting 'detector.threshold' must be a number, got array [0.1,0.2] (from --config my.json)",
      ])
    #expect(problems[2].help == "write true or false without quotes")
    #expect(problems[3].help == "put the value in double quotes")
  }

  @Test func integerSettingAcceptsWholeJSONNumbers() throws {
    var builder = try makeBuilder()
    builder.assign("flow.retries", .number(4.0), source: .flow("examples/blink.lua"))
    let (settings, problems) = builder.resolve()
    #expect(problems.isEmpty)
    #expect(settings["flow.retries"] == .integer(4))
  }

  @Test func problemKeepsTheValueOfTheHighestValidLayer() throws {
    var builder = try makeBuilder()
    builder.assign("flow.time_limit", .integer(20), source: .configs("configs/settings.json"))
    builder.assign("flow.time_limit", .integer(45), source: .configFile("my.json"))
    builder.assign("flow.time_limit", .string("long"), source: .configFile("other.json"))
    builder.assign("flow.time_limit", text: "500", source: .commandLine)
    let (settings, problems) = builder.resolve()
    #expect(settings.number("flow.time_limit") == 45)
    #expect(settings.source(of: "flow.time_limit") == .configFile("my.json"))
    #expect(problems.count == 2)
  }

  @Test func allProblemsAreSortedByLayerThenOrder() throws {
    var builder = try makeBuilder()
    builder.assign("flow.time_limit", text: "-1", source: .commandLine)
    builder.assign("nope.one", .integer(1), source: .configFile("b.json"))
    builder.assign("camera.facing", .string("side"), source: .flow("examples/blink.lua", line: 3))
    builder.assign("nope.two", text: "x", source: .commandLine)
    builder.assign("flow.retries", .integer(9), source: .configFile("b.json"))
    builder.declare(
      .string("flow.retries", default: "x", doc: "Retries."), source: .flow("examples/blink.lua", line: 1))
    builder.assign("nope.three", .integer(3), source: .configs("configs/settings.json"))
    let problems = builder.resolve().problems
    #expect(
      problems.map(\.location?.key) == [
        "nope.three", "camera.facing", "flow.retries", "nope.one", "flow.retries", "flow.time_limit", "nope.two",
      ])
    #expect(
      problems.map(\.location?.file) == [
        "configs/settings.json", "examples/blink.lua", "examples/blink.lua", "b.json", "b.json", "--set", "--set",
      ])
  }
}
