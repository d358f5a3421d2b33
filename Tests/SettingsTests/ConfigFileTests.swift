import Diagnostics
import JSONCore
import Settings
import TestSupport
import Testing

@Suite struct ConfigFileTests {
  @Test func nestedObjectsFlattenToDottedKeys() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = try directory.write(
      "my.json",
      """
      {
        "flow": {"time_limit": 20, "retries": 4},
        "camera.facing": "back",
        "report": {"include_frames": true, "title": "Nightly"}
      }
      """)
    var builder = try makeBuilder()
    try builder.load(configFile: path, layer: .configFile)
    let (settings, problems) = builder.resolve()
    #expect(problems.isEmpty)
    #expect(settings.number("flow.time_limit") == 20)
    #expect(settings.integer("flow.retries") == 4)
    #expect(settings.string("camera.facing") == "back")
    #expect(settings.boolean("report.include_frames") == true)
    #expect(settings.string("report.title") == "Nightly")
    #expect(settings.source(of: "flow.time_limit") == .configFile(path, line: 2))
    #expect(settings.source(of: "report.title") == .configFile(path, line: 4))
    #expect(settings.source(of: "flow.time_limit")?.description == "--config \(path)")
  }

  @Test func nestedAndDottedFormsAreTheSame() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let nestedPath = try directory.write("nested.json", #"{"flow": {"time_limit": 20}}"#)
    let dottedPath = try directory.write("dotted.json", #"{"flow.time_limit": 20}"#)
    var nested = try makeBuilder()
    try nested.load(configFile: nestedPath, layer: .configs)
    var dotted = try makeBuilder()
    try dotted.load(configFile: dottedPath, layer: .configs)
    #expect(nested.resolve().settings.nested == dotted.resolve().settings.nested)
    #expect(dotted.resolve().settings.number("flow.time_limit") == 20)
  }

  @Test func laterLoadedConfigFileWins() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let first = try directory.write("first.json", #"{"flow": {"time_limit": 20, "retries": 1}}"#)
    let second = try directory.write("second.json", #"{"flow": {"time_limit": 25}}"#)
    var builder = try makeBuilder()
    try builder.load(configFile: first, layer: .configFile)
    try builder.load(configFile: second, layer: .configFile)
    let settings = builder.resolve().settings
    #expect(settings.number("flow.time_limit") == 25)
    #expect(settings.source(of: "flow.time_limit")?.origin == second)
    #expect(settings.integer("flow.retries") == 1)
  }

  @Test func syntaxErrorNamesFileLineAndColumn() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = try directory.write("broken.json", "{\n  \"flow.time_limit\": 20,\n  \"flow.retries\" 3\n}\n")
    var builder = try makeBuilder()
    let error = try #require(throws: WorkbenchError.self) {
      try builder.load(configFile: path, layer: .configFile)
    }
    #expect(error.status == .usage)
    let diagnostic = try #require(error.diagnostics.first)
    #expect(diagnostic.location == SourceLocation(file: path, line: 3))
    #expect(
      diagnostic.message.hasPrefix("settings file '\(path)' is not valid JSON: syntax error at line 3, column 18"))
    #expect(diagnostic.help?.contains("line 3, column 18") == true)
  }

  @Test func missingFileSaysWhatToDo() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.path + "/absent.json"
    var builder = try makeBuilder()
    let error = try #require(throws: WorkbenchError.self) {
      try builder.load(configFile: path, layer: .configFile)
    }
    #expect(error.status == .usage)
    #expect(error.diagnostics.map(\.message) == ["cannot read settings file '\(path)': no such file"])
    #expect(error.diagnostics.first?.location?.file == path)
    #expect(error.diagnostics.first?.help?.contains("--config") == true)
  }

  @Test func directoryIsNotASettingsFile() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    var builder = try makeBuilder()
    let error = try #require(throws: WorkbenchError.self) {
      try builder.load(configFile: directory.path, layer: .configs)
    }
    #expect(error.diagnostics.map(\.message) == ["cannot read settings file '\(directory.path)': it is a directory"])
  }

  @Test func documentMustBeAnObject() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = try directory.write("list.json", "[1, 2]")
    var builder = try makeBuilder()
    let error = try #require(throws: WorkbenchError.self) {
      try builder.load(configFile: path, layer: .configFile)
    }
    #expect(error.diagnostics.map(\.message) == ["settings file '\(path)' must hold a JSON object, but holds array"])
  }

  @Test func problemsInAFilePointAtTheirLine() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = try directory.write(
      "settings.json",
      """
      {
        "flow": {
          "time_limt": 20,
          "retries": "3"
        },
        "tags": ["a", {"flow": 1}],
        "camera.facing": "side"
      }
      """)
    var builder = try makeBuilder()
    try builder.load(configFile: path, layer: .configs)
    let problems = builder.resolve().problems
    #expect(
      problems.map(\.location) == [
        SourceLocation(file: path, line: 3, key: "flow.time_limt"),
        SourceLocation(file: path, line: 4, key: "flow.retries"),
        SourceLocation(file: path, line: 6, key: "tags"),
        SourceLocation(file: path, line: 7, key: "camera.facing"),
      ])
    #expect(problems[0].message == "unknown setting 'flow.time_limt' (from \(path))")
    #expect(problems[1].message == #"setting 'flow.retries' must be an integer, got string "3" (from \#(path))"#)
    #expect(problems[1].help == "write the number without quotes: 3")
    #expect(problems[3].message.contains("must be one of 'front', 'back', 'external'"))
  }

  @Test func keyGivenTwiceInOneFileIsAProblem() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = try directory.write(
      "twice.json",
      """
      {
        "flow.time_limit": 20,
        "flow": {"time_limit": 40}
      }
      """)
    var builder = try makeBuilder()
    try builder.load(configFile: path, layer: .configFile)
    let (settings, problems) = builder.resolve()
    #expect(settings.number("flow.time_limit") == 40)
    #expect(
      problems.map(\.message) == [
        "setting 'flow.time_limit' is given twice in '\(path)' (lines 2 and 3)"
      ])
  }
}
