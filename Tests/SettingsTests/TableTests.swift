import JSONCore
import Settings
import Testing

@Suite struct TableTests {
  private func sampleSettings() throws -> ResolvedSettings {
    var builder = try makeBuilder()
    builder.assign("flow.time_limit", text: "45", source: .commandLine)
    builder.assign("camera.facing", .string("back"), source: .configFile("my.json"))
    builder.assign("report.title", .string(""), source: .flow("examples/blink.lua"))
    return builder.resolve().settings
  }

  @Test func tableShowsKeyValueSourceAndDoc() throws {
    let table = SettingsTable.render(try sampleSettings())
    let lines = table.split(separator: "\n").map(String.init)
    #expect(lines.first?.hasPrefix("KEY") == true)
    #expect(lines.first?.contains("VALUE") == true)
    #expect(lines.first?.contains("SOURCE") == true)
    let timeLimit = try #require(lines.firstIndex { $0.hasPrefix("flow.time_limit ") })
    #expect(
      lines[timeLimit].split(separator: " ", omittingEmptySubsequences: true) == [
        "flow.time_limit", "45", "s", "--set",
      ])
    #expect(lines[timeLimit + 1] == "    Seconds the user has to finish the flow. [0 ... 300 s; default 30 s]")
    let facing = try #require(lines.first { $0.hasPrefix("camera.facing ") })
    #expect(facing.hasSuffix("  --config my.json"))
    #expect(facing.contains(" back "))
    let buffer = try #require(lines.first { $0.hasPrefix("capture.buffer_size ") })
    #expect(buffer.contains("64 MiB") && buffer.hasSuffix("built-in default"))
    let title = try #require(lines.first { $0.hasPrefix("report.title ") })
    #expect(title.contains(#" "" "#))
    #expect(lines.allSatisfy { $0.count <= 100 })
    // Rows follow the key order.
    let keys = lines.dropFirst().filter { !$0.hasPrefix(" ") }.map { String($0.prefix { $0 != " " }) }
    #expect(keys == sampleDeclarations.map(\.key).sorted())
  }

  @Test func longDocsWrapWithinOneHundredColumns() throws {
    let doc = Array(repeating: "A long explanation of what this setting does.", count: 5).joined(separator: " ")
    let builder = try SettingsBuilder(declarations: [.boolean("debug.verbose", default: false, doc: doc)])
    let lines = SettingsTable.render(builder.resolve().settings).split(separator: "\n")
    #expect(lines.count > 3)
    #expect(lines.allSatisfy { $0.count <= 100 })
    #expect(lines.dropFirst(2).allSatisfy { $0.hasPrefix("    ") })
  }

  @Test func jsonListsEveryFieldOfASetting() throws {
    let entries = try #require(SettingsTable.json(try sampleSettings()).arrayValue)
    #expect(entries.count == sampleDeclarations.count)
    let timeLimit = try #require(entries.first { $0["key"] == "flow.time_limit" })
    #expect(
      timeLimit.jsonText
        == #"{"key":"flow.time_limit","value":45,"type":"number","default":30,"min":0,"max":300,"#
        + #""choices":null,"unit":"s","source":"--set","doc":"Seconds the user has to finish the flow."}"#)
    let facing = try #require(entries.first { $0["key"] == "camera.facing" })
    #expect(facing["choices"] == ["front", "back", "external"])
    #expect(facing["value"] == "back")
    #expect(facing["type"] == "choice")
    #expect(facing["min"] == .null)
    #expect(facing["source"] == "--config my.json")
  }

  @Test func nestedGroupsValuesByDottedPathWithSortedKeys() throws {
    let nested = try sampleSettings().nested
    #expect(nested.objectValue?.keys == ["camera", "capture", "detector", "flow", "report"])
    #expect(nested["flow"]?.objectValue?.keys == ["retries", "time_limit"])
    #expect(nested["flow"]?["time_limit"] == .number(45))
    #expect(nested["flow"]?["retries"] == .integer(2))
    #expect(
      nested.jsonText
        == #"{"camera":{"facing":"back"},"capture":{"buffer_size":64},"detector":{"threshold":0.25},"#
        + #""flow":{"retries":2,"time_limit":45},"report":{"include_frames":false,"title":""}}"#)
  }

  @Test func nestedHandlesDeeperPaths() throws {
    let builder = try SettingsBuilder(declarations: [
      .integer("a.b.c", default: 1, doc: "C."), .integer("a.b.d", default: 2, doc: "D."),
      .integer("a.e", default: 3, doc: "E."),
    ])
    #expect(builder.resolve().settings.nested == ["a": ["b": ["c": 1, "d": 2], "e": 3]])
  }
}
