import Foundation
import JSONCore
import TestSupport
import Testing

private let liveness = "examples/liveness.lua"
private let passTrace = "examples/traces/liveness-pass.jsonl"

@Suite struct SetOptionTests {
  private func run(_ assignment: String) throws -> (Outcome, [JSONValue]) {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let eventsPath = folder.file("events.jsonl")
    let outcome = try workbench(
      ["run", liveness, "--input", passTrace, "--events", eventsPath, "--quiet", "--set", assignment], folder: folder)
    return (outcome, try events(eventsPath))
  }

  @Test func anUnknownKeyIsNamedWithASuggestion() throws {
    let (outcome, records) = try run("flow.time_limt=3")
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains("unknown setting 'flow.time_limt'"), "\(outcome)")
    #expect(outcome.stderr.contains("did you mean 'flow.time_limit'?"), "\(outcome)")
    #expect(try result(records)["success"] == false)
  }

  @Test func aValueOutOfRangeNamesTheKeyAndTheRange() throws {
    let (outcome, _) = try run("flow.time_limit=99999")
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains("'flow.time_limit' = 99999 is out of range"), "\(outcome)")
    #expect(outcome.stderr.contains("0 ... 3600"), "\(outcome)")
  }

  @Test func aValueOfTheWrongTypeIsAnError() throws {
    let (outcome, records) = try run("flow.time_limit=abc")
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains("'flow.time_limit' must be a number"), "\(outcome)")
    #expect(outcome.stderr.contains("\"abc\""), "\(outcome)")
    #expect(try result(records)["reason"] == "settings_error", "refused for its settings alone")
  }

  @Test func aValidValueChangesTheRun() throws {
    // A time limit of 1 s ends the passing trace (4.1 s long) with time_limit.
    let (outcome, records) = try run("flow.time_limit=1")
    #expect(outcome.status == 1, "\(outcome)")
    #expect(records.first?["time_limit"] == 1)
    #expect(try result(records)["reason"] == "time_limit")
  }
}

@Suite struct CheckTests {
  @Test func theExampleFlowIsFine() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(["check", liveness], folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    #expect(outcome.stdout.hasPrefix("ok: examples/liveness.lua: flow 'liveness', 4 steps"))
    #expect(outcome.stdout.contains("(en, zh-HK)"))
  }

  @Test func everyAPIMistakeIsListed() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let file = "\(fixtures)/api-mistakes.lua"
    let outcome = try workbench(["check", file], folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    let expected = [
      "\(file):9: wb.threshold: give field = \"group.name\" or value = function(m) ... end",
      "\(file):10: wb.range: min (5) is above max (-5)",
      "\(file):11: wb.step: unknown field 'speed'",
      "\(file):11: wb.step: a step needs update = function(self, m, ctx) ... end",
      "\(file):6: wb.flow: unknown field 'colour'",
      "\(file):7: wb.flow: field 'time_limit' must be a number, not a string",
    ]
    for text in expected {
      #expect(outcome.stderr.contains(text), "missing: \(text)\n\(outcome)")
    }
    #expect(outcome.stderr.contains("6 problems in \(file)"), "\(outcome)")
    // A step without update is reported once, by wb.step, not again by wb.flow.
    #expect(!outcome.stderr.contains("has no update function"), "\(outcome)")
  }

  @Test func flowLevelMistakesNameTheirLine() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let file = "\(fixtures)/api-mistakes.lua"
    let outcome = try workbench(["check", file], folder: folder)
    // `return wb.flow {...}` is a tail call, so Lua has no line for these:
    // the host finds the field's own line in the source.
    let flowProblems = outcome.stderr.split(separator: "\n").filter { $0.contains("wb.flow:") }
    #expect(flowProblems.count == 2)
    #expect(flowProblems.contains { $0.hasPrefix("error: \(file):6: wb.flow: unknown field 'colour'") })
    #expect(flowProblems.contains { $0.hasPrefix("error: \(file):7: wb.flow: field 'time_limit'") })
  }

  @Test func aHintKeyMissingFromACatalogIsReportedWithItsLanguage() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    // Missing from a language other than the fallback: a run falls back, so a warning.
    let lenient = try workbench(["check", "\(fixtures)/missing-key/flow.lua"], folder: folder)
    #expect(lenient.status == 0, "\(lenient)")
    #expect(
      lenient.stderr.contains("warning: \(fixtures)/missing-key/messages/zh-HK.json (key 'fixture.only_english')"),
      "\(lenient)")
    let outcome = try workbench(["check", "\(fixtures)/missing-key/flow.lua", "--strict"], folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(
      outcome.stderr.contains("message key 'fixture.only_english' is missing from the 'zh-HK' catalog"), "\(outcome)")
    #expect(!outcome.stderr.contains("from the 'en' catalog"), "\(outcome)")
    #expect(outcome.stderr.contains("1 problem in"), "\(outcome)")
  }

  @Test func checkReportsSettingProblemsToo() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(["check", liveness, "--set", "liveness.turn_yaw=500"], folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains("liveness.turn_yaw"), "\(outcome)")
    #expect(outcome.stderr.contains("5 ... 80"), "\(outcome)")
  }

  @Test func checkFindsASyntaxError() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(["check", "\(fixtures)/syntax-error.lua"], folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains("\(fixtures)/syntax-error.lua:6:"), "\(outcome)")
  }

  @Test func checkOfAMissingFlow() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(["check", "examples/no-such-flow.lua"], folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains("examples/no-such-flow.lua: no such flow file"), "\(outcome)")
  }
}

@Suite struct SettingsCommandTests {
  @Test func theTableShowsValuesAndTheirSources() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(["settings", liveness, "--set", "flow.time_limit=12"], folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    let rows = outcome.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
    let timeLimit = try #require(rows.first { $0.first == "flow.time_limit" }, "\(outcome)")
    #expect(timeLimit.dropFirst().first == "12")
    #expect(timeLimit.last == "--set")
    for key in [
      "liveness.front_yaw", "liveness.closed_below", "liveness.open_above", "liveness.blink_max_ms",
      "liveness.turn_yaw",
    ] {
      let row = try #require(rows.first { $0.first.map(String.init) == key }, "\(key)\n\(outcome)")
      #expect(row.joined(separator: " ").hasSuffix("examples/liveness.lua"), "\(row)")
    }
    let turn = try #require(rows.first { $0.first == "liveness.turn_yaw" })
    #expect(turn.dropFirst().first == "25")
  }

  @Test func jsonOutputParses() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(["settings", liveness, "--set", "flow.time_limit=12", "--json"], folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    let value = try JSONParser.parse(outcome.stdout)
    let entries = try #require(value.arrayValue)
    func entry(_ key: String) -> JSONValue? { entries.first { $0["key"] == .string(key) } }
    let timeLimit = try #require(entry("flow.time_limit"))
    #expect(timeLimit["value"] == 12)
    #expect(timeLimit["source"] == "--set")
    #expect(timeLimit["default"] == 60)
    let frontYaw = try #require(entry("liveness.front_yaw"))
    #expect(frontYaw["value"] == 10)
    #expect(frontYaw["source"]?.stringValue?.contains("examples/liveness.lua") == true)
    #expect(entry("lua.instruction_limit") != nil)
  }

  @Test func withoutAFlowOnlyTheBuiltInSettingsAreShown() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(["settings", "--json"], folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    let keys = try #require(try JSONParser.parse(outcome.stdout).arrayValue).compactMap { $0["key"]?.stringValue }
    #expect(keys.contains("flow.time_limit"))
    #expect(!keys.contains { $0.hasPrefix("liveness.") })
  }

  @Test func theSeedIsALayerOfSettingsWithAndWithoutAFlow() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    for arguments in [["settings", liveness], ["settings"]] {
      let outcome = try workbench(arguments + ["--seed", "9", "--json"], folder: folder)
      #expect(outcome.status == 0, "\(outcome)")
      let entries = try #require(try JSONParser.parse(outcome.stdout).arrayValue)
      let seed = try #require(entries.first { $0["key"] == "flow.seed" })
      #expect(seed["value"] == 9)
      #expect(seed["source"] == "--seed")
    }
  }

  @Test func settingsRejectsABadSet() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(["settings", liveness, "--set", "flow.time_limt=3"], folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains("flow.time_limit"), "\(outcome)")
  }
}

@Suite struct InputErrorTests {
  @Test func aMissingTraceExits4() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let eventsPath = folder.file("events.jsonl")
    let trace = folder.file("no-such-trace.jsonl")
    let outcome = try workbench(["run", liveness, "--input", trace, "--events", eventsPath, "--quiet"], folder: folder)
    #expect(outcome.status == 4, "\(outcome)")
    #expect(outcome.stderr.contains("\(trace): no such file"), "\(outcome)")
    let end = try result(events(eventsPath))
    #expect(end["reason"] == "input_error")
    #expect(end["code"] == -4)
  }

  @Test func aBadLineNamesTheFileAndLine() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let source = try #require(fileText(packageRoot + "/" + passTrace))
    let firstLines = source.split(separator: "\n").prefix(20).joined(separator: "\n")
    let trace = try folder.write("bad.jsonl", firstLines + "\n{\"t\": oops}\n" + "{\"t\": 99}\n")
    let eventsPath = folder.file("events.jsonl")
    let outcome = try workbench(["run", liveness, "--input", trace, "--events", eventsPath, "--quiet"], folder: folder)
    #expect(outcome.status == 4, "\(outcome)")
    #expect(outcome.stderr.contains("\(trace):21: not valid JSON"), "\(outcome)")
    let records = try events(eventsPath)
    #expect(records.first?["type"] == "session")
    let end = try result(records)
    #expect(end["reason"] == "input_error")
    #expect(end["success"] == false)
    #expect(end["frames"] == 19)
    #expect(end["error"]?.stringValue?.contains("\(trace):21") == true)
  }

  @Test func timeGoingBackwardsIsAnInputError() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let trace = try folder.write("back.jsonl", "{\"t\": 0}\n{\"t\": 1}\n{\"t\": 0.5}\n")
    let eventsPath = folder.file("events.jsonl")
    let outcome = try workbench(["run", liveness, "--input", trace, "--events", eventsPath, "--quiet"], folder: folder)
    #expect(outcome.status == 4, "\(outcome)")
    #expect(outcome.stderr.contains("\(trace):3: time goes backwards"), "\(outcome)")
    #expect(try result(events(eventsPath))["reason"] == "input_error")
  }

  @Test func anEventsFileInAMissingFolderIsAUsageError() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(
      ["run", liveness, "--input", passTrace, "--events", folder.file("missing/events.jsonl"), "--quiet"],
      folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains("does not exist"), "\(outcome)")
  }
}

@Suite struct UsageTests {
  @Test func aMissingInputIsAUsageError() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(["run", liveness], folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains("--input"), "\(outcome)")
  }

  @Test func anUnknownOptionIsAUsageError() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(["run", liveness, "--input", passTrace, "--bogus"], folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains("--bogus"), "\(outcome)")
  }

  @Test func anUnknownCommandIsAUsageError() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(["frobnicate"], folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
  }

  @Test func aBadSeedIsAUsageError() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(["run", liveness, "--input", passTrace, "--seed", "seven"], folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
  }

  @Test func aBadLogLevelIsAUsageError() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(["check", liveness, "--log-level", "loud"], folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains("--log-level"), "\(outcome)")
  }

  @Test(arguments: ["run", "check", "settings"])
  func helpShowsAnExample(command: String) throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench([command, "--help"], folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    #expect(outcome.stdout.contains("Example"), "\(outcome)")
    #expect(outcome.stdout.contains("workbench \(command)"), "\(outcome)")
  }

  @Test func topLevelHelpListsTheCommands() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(["--help"], folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    for command in ["run", "check", "settings"] { #expect(outcome.stdout.contains(command)) }
    #expect(outcome.stdout.contains("Exit codes"))
  }
}

/// `workbench settings` credits each setting to the file that declares it.
@Suite struct SettingsSourceTests {
  @Test func aModuleTheFlowRequiresIsCreditedWithItsSettings() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(["settings", "examples/hkid-2018.lua"], folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    let flip = try #require(outcome.stdout.split(separator: "\n").first { $0.hasPrefix("hkid.flip_angle ") })
    #expect(flip.hasSuffix("default from examples/hkid.lua"), "\(flip)")
    let own = try workbench(["settings", "examples/liveness.lua"], folder: folder)
    let turn = try #require(own.stdout.split(separator: "\n").first { $0.hasPrefix("liveness.turn_yaw ") })
    #expect(turn.hasSuffix("default from examples/liveness.lua"), "\(turn)")
  }
}

/// `workbench check` on every bundled flow: no problem, no warning.
@Suite struct BundledFlowCheckTests {
  @Test(arguments: [
    "best-shot", "card-then-face", "enroll", "face-add", "hkid-2003", "hkid-2018", "hkid-2018-wide", "identify",
    "image-quality",
    "liveness-blink", "liveness-random", "liveness", "liveness-strict", "verify",
  ])
  func checksClean(flow: String) throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(["check", "examples/\(flow).lua", "--strict"], folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    #expect(!outcome.stderr.contains("warning"), "\(outcome)")
  }
}
