import Diagnostics
import JSONCore
import Settings
import Testing

@Suite struct LayeringTests {
  @Test func defaultsComeFromTheDeclarations() throws {
    let (settings, problems) = try makeBuilder().resolve()
    #expect(problems.isEmpty)
    #expect(settings.number("flow.time_limit") == 30)
    #expect(settings.integer("flow.retries") == 2)
    #expect(settings.boolean("report.include_frames") == false)
    #expect(settings.string("report.title") == "Liveness check")
    #expect(settings.string("camera.facing") == "front")
    #expect(settings.source(of: "flow.time_limit") == .builtin)
    #expect(settings.all.map(\.key) == sampleDeclarations.map(\.key).sorted())
  }

  @Test func eachLayerOverridesTheOnesBelow() throws {
    let sources: [SettingSource] = [
      .configs("configs/settings.json"), .flow("examples/blink.lua", line: 3),
      .configFile("my.json"), .commandLine,
    ]
    var builder = try makeBuilder()
    for (index, source) in sources.enumerated() {
      builder.assign("flow.time_limit", .integer(Int64(10 * (index + 1))), source: source)
      let (settings, problems) = builder.resolve()
      #expect(problems.isEmpty)
      #expect(settings.number("flow.time_limit") == Double(10 * (index + 1)))
      #expect(settings.source(of: "flow.time_limit") == source)
    }
  }

  @Test func higherLayerWinsWhateverTheCallOrder() throws {
    var builder = try makeBuilder()
    builder.assign("flow.time_limit", text: "90", source: .commandLine)
    builder.assign("flow.time_limit", .integer(60), source: .configFile("my.json"))
    builder.assign("flow.time_limit", .integer(45), source: .flow("examples/blink.lua"))
    builder.assign("flow.time_limit", .integer(20), source: .configs("configs/settings.json"))
    builder.assign("flow.retries", .integer(4), source: .configs("configs/settings.json"))
    builder.assign("flow.retries", .integer(1), source: .flow("examples/blink.lua", line: 7))
    let settings = builder.resolve().settings
    #expect(settings.number("flow.time_limit") == 90)
    #expect(settings.source(of: "flow.time_limit")?.description == "--set")
    #expect(settings.integer("flow.retries") == 1)
    #expect(settings.source(of: "flow.retries") == .flow("examples/blink.lua", line: 7))
  }

  @Test func laterConfigFileAndLaterSetWin() throws {
    var builder = try makeBuilder()
    builder.assign("flow.time_limit", .integer(60), source: .configFile("first.json"))
    builder.assign("flow.time_limit", .integer(70), source: .configFile("second.json"))
    builder.assign("report.title", text: "A", source: .commandLine)
    builder.assign("report.title", text: "B", source: .commandLine)
    let settings = builder.resolve().settings
    #expect(settings.number("flow.time_limit") == 70)
    #expect(settings.source(of: "flow.time_limit")?.description == "--config second.json")
    #expect(settings.string("report.title") == "B")
  }

  @Test func flowDeclaredSettingHasItsDefaultAndTakesValues() throws {
    var builder = try makeBuilder()
    // A config file may name a flow's setting before the flow declares it.
    builder.assign("blink.min_count", .integer(3), source: .configs("configs/settings.json"))
    builder.declare(
      .integer("blink.min_count", default: 2, minimum: 1, maximum: 10, doc: "Blinks needed to pass."),
      source: .flow("examples/blink.lua", line: 5))
    builder.declare(
      .number("blink.max_gap", default: 1.5, minimum: 0, unit: "s", doc: "Longest pause between blinks."),
      source: .flow("examples/blink.lua", line: 6))
    var (settings, problems) = builder.resolve()
    #expect(problems.isEmpty)
    #expect(settings.integer("blink.min_count") == 3)
    #expect(settings.number("blink.max_gap") == 1.5)
    #expect(settings.source(of: "blink.max_gap")?.description == "default from examples/blink.lua")
    #expect(settings.source(of: "blink.max_gap")?.line == 6)

    builder.assign("blink.min_count", .integer(4), source: .flow("examples/blink.lua", line: 9))
    builder.assign("blink.max_gap", text: "0.75", source: .commandLine)
    (settings, problems) = builder.resolve()
    #expect(problems.isEmpty)
    #expect(settings.integer("blink.min_count") == 4)
    #expect(settings.number("blink.max_gap") == 0.75)
  }

  @Test func identicalRedeclarationIsFine() throws {
    var builder = try makeBuilder()
    builder.declare(sampleDeclarations[0], source: .flow("examples/blink.lua"))
    let (settings, problems) = builder.resolve()
    #expect(problems.isEmpty)
    #expect(settings.source(of: "flow.time_limit") == .builtin)
  }

  @Test func redeclaringWithAnotherTypeIsAProblemAndTheFirstStays() throws {
    var builder = try makeBuilder()
    builder.declare(
      .string("flow.time_limit", default: "long", doc: "Seconds."), source: .flow("examples/blink.lua", line: 2))
    let (settings, problems) = builder.resolve()
    #expect(settings.number("flow.time_limit") == 30)
    #expect(problems.count == 1)
    #expect(
      problems[0].message
        == "setting 'flow.time_limit' is built in as a number (seconds); "
        + "flow examples/blink.lua cannot redeclare it as a string")
    #expect(problems[0].location == SourceLocation(file: "examples/blink.lua", line: 2, key: "flow.time_limit"))
    #expect(problems[0].help != nil)
  }

  @Test func redeclaringWithAnotherDefaultIsAProblem() throws {
    var builder = try makeBuilder()
    builder.declare(
      .number(
        "flow.time_limit", default: 60, minimum: 0, maximum: 300, unit: "s",
        doc: "Seconds the user has to finish the flow."),
      source: .flow("examples/blink.lua"))
    let (settings, problems) = builder.resolve()
    #expect(settings.number("flow.time_limit") == 30)
    #expect(
      problems.map(\.message) == [
        "setting 'flow.time_limit' is built in; flow examples/blink.lua redeclares it with a different default"
      ])
  }

  @Test func invalidFlowDeclarationIsAProblemNotAnError() throws {
    var builder = try makeBuilder()
    builder.declare(
      .integer("blink.count", default: 20, minimum: 1, maximum: 10, doc: "Blinks."),
      source: .flow("examples/blink.lua", line: 4))
    let (settings, problems) = builder.resolve()
    #expect(settings["blink.count"] == nil)
    #expect(
      problems.map(\.message) == [
        "setting 'blink.count' has default 20 outside its range 1 ... 10 (from flow examples/blink.lua)"
      ])
    #expect(problems[0].location == SourceLocation(file: "examples/blink.lua", line: 4, key: "blink.count"))
  }

  @Test func resolutionIsDeterministic() throws {
    func build() throws -> SettingsBuilder {
      var builder = try makeBuilder()
      for index in 0..<20 {
        builder.assign("unknown.key_\(index)", .integer(Int64(index)), source: .configFile("my.json"))
        builder.declare(
          .integer("extra.setting_\(index)", default: Int64(index), doc: "Extra."), source: .flow("f.lua"))
      }
      builder.assign("flow.time_limit", text: "999", source: .commandLine)
      builder.assign("camera.facing", .string("side"), source: .flow("f.lua"))
      return builder
    }
    let first = try build().resolve()
    let second = try build().resolve()
    #expect(first.problems == second.problems)
    #expect(first.problems.count == 22)
    #expect(first.settings.all == second.settings.all)
    #expect(first.settings.nested.jsonText == second.settings.nested.jsonText)
    #expect(SettingsTable.render(first.settings) == SettingsTable.render(second.settings))
  }
}
