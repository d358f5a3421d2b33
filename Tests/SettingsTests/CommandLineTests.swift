import Diagnostics
import JSONCore
import Settings
import Testing

@Suite struct CommandLineTests {
  @Test func assignmentSplitsAtTheFirstEqualsSign() throws {
    #expect(try SettingsBuilder.parseAssignment("flow.time_limit=30") == ("flow.time_limit", "30"))
    #expect(try SettingsBuilder.parseAssignment("report.title=a=b") == ("report.title", "a=b"))
    #expect(try SettingsBuilder.parseAssignment("report.title=") == ("report.title", ""))
    #expect(try SettingsBuilder.parseAssignment(" flow.retries =2") == ("flow.retries", "2"))
  }

  @Test func assignmentWithoutEqualsShowsTheExpectedForm() throws {
    let error = try #require(throws: WorkbenchError.self) {
      try SettingsBuilder.parseAssignment("flow.time_limit")
    }
    #expect(error.status == .usage)
    #expect(error.diagnostics.map(\.message) == ["--set expects key=value, got 'flow.time_limit'"])
    #expect(error.diagnostics.first?.help?.contains("--set flow.time_limit=VALUE") == true)
  }

  @Test func assignmentWithoutKeyShowsTheExpectedForm() throws {
    let error = try #require(throws: WorkbenchError.self) {
      try SettingsBuilder.parseAssignment("=30")
    }
    #expect(error.status == .usage)
    #expect(error.diagnostics.first?.message == "--set expects key=value, but '=30' has no key before '='")
    #expect(error.diagnostics.first?.help?.contains("KEY=VALUE") == true)
  }

  @Test(arguments: [("12.5", 12.5), ("20", 20), ("1e2", 100), ("0.25", 0.25), (" 7 ", 7)])
  func numberText(text: String, expected: Double) throws {
    let (settings, problems) = try resolveSet("flow.time_limit", text)
    #expect(problems.isEmpty)
    #expect(settings["flow.time_limit"] == .number(expected))
    #expect(settings.source(of: "flow.time_limit") == .commandLine)
  }

  @Test(arguments: ["abc", "0x1p3", "nan", "inf", ""])
  func nonNumberTextIsRejected(text: String) throws {
    let (settings, problems) = try resolveSet("flow.time_limit", text)
    #expect(settings.number("flow.time_limit") == 30)
    #expect(
      problems.map(\.message) == [
        "setting 'flow.time_limit' must be a number (seconds), got string \(JSONValue.string(text).jsonText) (from --set)"
      ])
    #expect(problems.first?.location == SourceLocation(file: "--set", key: "flow.time_limit"))
  }

  @Test func integerTextAcceptsWholeNumbersOnly() throws {
    #expect(try resolveSet("flow.retries", "3").settings["flow.retries"] == .integer(3))
    #expect(try resolveSet("flow.retries", "4.0").settings["flow.retries"] == .integer(4))
    let (settings, problems) = try resolveSet("flow.retries", "2.5")
    #expect(settings.integer("flow.retries") == 2)
    #expect(problems.map(\.message) == [#"setting 'flow.retries' must be an integer, got string "2.5" (from --set)"#])
    #expect(problems.first?.help == "give a whole number, such as the default 2")
  }

  @Test(arguments: [
    ("true", true), ("FALSE", false), ("yes", true), ("No", false), ("on", true), ("OFF", false), ("1", true),
    ("0", false),
  ])
  func booleanWords(text: String, expected: Bool) throws {
    let (settings, problems) = try resolveSet("report.include_frames", text)
    #expect(problems.isEmpty)
    #expect(settings.boolean("report.include_frames") == expected)
  }

  @Test func otherBooleanTextIsRejected() throws {
    let (settings, problems) = try resolveSet("report.include_frames", "maybe")
    #expect(settings.boolean("report.include_frames") == false)
    #expect(
      problems.map(\.message) == [
        #"setting 'report.include_frames' must be a boolean, got string "maybe" (from --set)"#
      ])
    #expect(problems.first?.help?.contains("yes/no") == true)
  }

  @Test func stringTextIsKeptAsGiven() throws {
    let (settings, problems) = try resolveSet("report.title", "  Night run = 2 ")
    #expect(problems.isEmpty)
    #expect(settings.string("report.title") == "  Night run = 2 ")
  }

  @Test func choiceTextMustBeOneOfTheChoices() throws {
    #expect(try resolveSet("camera.facing", "back").settings.string("camera.facing") == "back")
    let (settings, problems) = try resolveSet("camera.facing", "Back")
    #expect(settings.string("camera.facing") == "front")
    #expect(
      problems.map(\.message) == [
        #"setting 'camera.facing' must be one of 'front', 'back', 'external', got string "Back" (from --set)"#
      ])
    #expect(problems.first?.help == "did you mean 'back'? use one of: front, back, external")
  }
}
