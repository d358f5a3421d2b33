import Diagnostics
import JSONCore
import Testing

@testable import Settings

@Suite struct DeclarationTests {
  @Test(arguments: ["flow", "flow.time_limit", "a1.b_2.3c", "camera._x"])
  func acceptsValidKeys(key: String) {
    #expect(SettingDeclaration.isValidKey(key))
  }

  @Test(arguments: ["", "Flow.time", "1flow", "_flow", "flow.", ".flow", "flow..x", "flow-x", "flow.Time", "flow x"])
  func rejectsInvalidKeys(key: String) {
    #expect(!SettingDeclaration.isValidKey(key))
  }

  @Test func duplicateKeyIsAUsageError() throws {
    let error = try #require(throws: WorkbenchError.self) {
      try SettingsBuilder(declarations: [
        .number("flow.time_limit", default: 30, doc: "A."),
        .number("flow.time_limit", default: 10, doc: "B."),
      ])
    }
    #expect(error.status == .usage)
    #expect(error.diagnostics.map(\.message) == ["setting 'flow.time_limit' is declared twice"])
  }

  @Test func invalidKeyIsAUsageError() throws {
    let error = try #require(throws: WorkbenchError.self) {
      try SettingsBuilder(declarations: [.boolean("Flow.Debug", default: false, doc: "Debug.")])
    }
    #expect(error.status == .usage)
    #expect(error.diagnostics.count == 1)
    #expect(error.diagnostics[0].message.contains("setting key 'Flow.Debug' is not valid"))
  }

  @Test func defaultOutOfRangeIsAUsageError() throws {
    let error = try #require(throws: WorkbenchError.self) {
      try SettingsBuilder(declarations: [
        .number("flow.time_limit", default: 500, minimum: 0, maximum: 300, unit: "s", doc: "Seconds.")
      ])
    }
    #expect(error.status == .usage)
    #expect(
      error.diagnostics.map(\.message) == [
        "setting 'flow.time_limit' has default 500 outside its range 0 ... 300 s"
      ])
  }

  @Test func everyFaultyDeclarationIsReportedAtOnce() throws {
    let error = try #require(throws: WorkbenchError.self) {
      try SettingsBuilder(declarations: [
        SettingDeclaration(key: "a.flag", type: .boolean, defaultValue: .string("yes"), doc: "Flag."),
        .choice("a.mode", ["fast", "slow"], default: "medium", doc: "Mode."),
        SettingDeclaration(key: "a.name", type: .string, defaultValue: .string(""), minimum: 1, doc: "Name."),
        .number("a.limit", default: 1, minimum: 5, maximum: 2, doc: "Limit."),
        .integer("a.count", default: 1, doc: "Two\nlines."),
      ])
    }
    #expect(
      error.diagnostics.map(\.message) == [
        #"setting 'a.flag' must have a boolean as default, got "yes""#,
        #"setting 'a.mode' has default "medium", which is not one of 'fast', 'slow'"#,
        "setting 'a.name' is a string; only numbers and integers have a range",
        "setting 'a.limit' has a minimum 5 above its maximum 2",
        "setting 'a.limit' has default 1 outside its range 5 ... 2",
        "setting 'a.count' needs a doc of exactly one line",
      ])
  }

  @Test func keyThatIsAlsoAGroupIsRefused() throws {
    let error = try #require(throws: WorkbenchError.self) {
      try SettingsBuilder(declarations: [
        .number("flow.time_limit", default: 30, doc: "Seconds."),
        .boolean("flow", default: true, doc: "Whether to run."),
      ])
    }
    #expect(
      error.diagnostics.map(\.message) == [
        "setting 'flow' clashes with setting 'flow.time_limit': a key cannot also be the group of another key"
      ])
  }

  @Test func integerDefaultOfANumberSettingReadsAsNumber() throws {
    let builder = try SettingsBuilder(declarations: [
      SettingDeclaration(key: "flow.time_limit", type: .number, defaultValue: .integer(30), doc: "Seconds.")
    ])
    #expect(builder.resolve().settings["flow.time_limit"] == .number(30))
  }

  @Test func valuesPrintInShortestForm() {
    #expect(SettingValue.number(30).description == "30")
    #expect(SettingValue.number(0.25).description == "0.25")
    #expect(SettingValue.number(-2.5).description == "-2.5")
    #expect(SettingValue.integer(64).description == "64")
    #expect(SettingValue.boolean(true).description == "true")
    #expect(SettingValue.string("front camera").description == "front camera")
  }

  @Test func valuesConvertToJSON() {
    #expect(SettingValue.number(0.5).jsonValue == .number(0.5))
    #expect(SettingValue.integer(3).jsonValue == .integer(3))
    #expect(SettingValue.boolean(false).jsonValue == .bool(false))
    #expect(SettingValue.string("x").jsonValue == .string("x"))
    #expect(SettingValue.number(30).jsonValue.jsonText == "30")
  }

  @Test func sourcesDescribeTheirLayer() {
    #expect(SettingSource.builtin.description == "built-in default")
    #expect(SettingSource.configs("configs/settings.json").description == "configs/settings.json")
    #expect(SettingSource.flow("examples/blink.lua", line: 4).description == "flow examples/blink.lua")
    #expect(SettingSource.configFile("my.json").description == "--config my.json")
    #expect(SettingSource.commandLine.description == "--set")
    #expect(
      SettingSource(layer: .builtin, origin: "examples/blink.lua").description == "default from examples/blink.lua")
  }

  @Test func layersAreOrderedLowestFirst() {
    #expect(SettingLayer.allCases == [.builtin, .configs, .flow, .configFile, .commandLine])
    #expect(SettingLayer.configs < SettingLayer.flow)
    #expect(SettingLayer.commandLine > SettingLayer.configFile)
  }

  @Test func rangeDescriptionsNameTheUnit() {
    #expect(
      SettingDeclaration.number("a", default: 1, minimum: 0, maximum: 3, unit: "s", doc: "A.").rangeDescription
        == "0 ... 3 s")
    #expect(SettingDeclaration.number("a", default: 1, minimum: 0.5, doc: "A.").rangeDescription == "0.5 or more")
    #expect(
      SettingDeclaration.integer("a", default: 1, maximum: 8, unit: "MiB", doc: "A.").rangeDescription == "up to 8 MiB")
    #expect(SettingDeclaration.number("a", default: 1, doc: "A.").rangeDescription == nil)
  }

  @Test func editDistanceCountsEdits() {
    #expect(editDistance("flow.time_limt", "flow.time_limit") == 1)
    #expect(editDistance("kitten", "sitting") == 3)
    #expect(editDistance("", "abc") == 3)
    #expect(editDistance("same", "same") == 0)
  }
}
