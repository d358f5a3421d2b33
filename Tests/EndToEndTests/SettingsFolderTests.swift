import Foundation
import JSONCore
import TestSupport
import Testing

/// `--settings-dir`: an integrator's files replace the bundled ones of
/// configs/ with the same name, whole; a key left out is an error naming it.
@Suite struct SettingsFolderTests {
  private func bundled(_ name: String) throws -> String {
    try #require(fileText(packageRoot + "/configs/" + name))
  }

  @Test func aCompleteSettingsFileReplacesTheBundledOneAndIsShownAsTheSource() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let text = try bundled("settings.json").replacingOccurrences(of: "\"step_timeout\": 5", with: "\"step_timeout\": 7")
    #expect(text.contains("\"step_timeout\": 7"))
    let replacing = try folder.write("site/settings.json", text)
    let shown = try workbench(["settings", "--settings-dir", folder.file("site"), "--json"], folder: folder)
    #expect(shown.status == 0, "\(shown)")
    let settings = try #require(try JSONParser.parse(shown.stdout).arrayValue)
    let entry = try #require(settings.first { $0["key"] == "flow.step_timeout" })
    #expect(entry["value"] == 7, "\(entry)")
    #expect(entry["source"] == .string(replacing), "\(entry)")
    let untouched = try #require(settings.first { $0["key"] == "flow.time_limit" })
    #expect(untouched["source"] == .string(replacing), "the file gives every key: \(untouched)")
  }

  @Test func theMachinesAndTheUsersSettingsGiveTheKeysTheyNameEachShownAsItsFile() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    // The harness points /etc/workbench and ~/.config/workbench here (Support.swift).
    let machine = try folder.write("etc-workbench/settings.json", #"{"flow": {"step_timeout": 6, "time_limit": 9}}"#)
    let user = try folder.write("xdg-config/workbench/settings.json", #"{"flow": {"step_timeout": 7}}"#)
    let shown = try workbench(["settings", "--json"], folder: folder)
    #expect(shown.status == 0, "\(shown)")
    let settings = try #require(try JSONParser.parse(shown.stdout).arrayValue)
    func entry(_ key: String) throws -> JSONValue { try #require(settings.first { $0["key"] == .string(key) }) }
    #expect(try entry("flow.step_timeout")["value"] == 7)
    #expect(try entry("flow.step_timeout")["source"] == .string(user))
    #expect(try entry("flow.time_limit")["value"] == 9)
    #expect(try entry("flow.time_limit")["source"] == .string(machine))
    #expect(try entry("messages.language")["source"] == "configs/settings.json")
    // --set still wins over both.
    let set = try workbench(["settings", "--set", "flow.step_timeout=4", "--json"], folder: folder)
    let setSettings = try #require(try JSONParser.parse(set.stdout).arrayValue)
    #expect(setSettings.first { $0["key"] == "flow.step_timeout" }?["value"] == 4, "\(set)")
  }

  @Test func defaultsPrintsTheWholeFileWithEachKeysDescription() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let table = try workbench(["settings", "--defaults"], folder: folder)
    #expect(table.status == 0, "\(table)")
    #expect(table.stdout.contains("card.estimate_focal"), "\(table.stdout)")
    #expect(table.stdout.contains("Estimate an unknown focal length from the card"), "the description")
    #expect(table.stdout.contains("[0 ... 170 deg]"), "the range of card.field_of_view")
    let json = try workbench(["settings", "--defaults", "--json"], folder: folder)
    #expect(json.status == 0)
    #expect(try JSONParser.parse(json.stdout) == JSONParser.parse(try bundled("settings.json")))
    let refused = try workbench(["settings", "--defaults", "examples/liveness.lua"], folder: folder)
    #expect(refused.status == 2)
    #expect(refused.stderr.contains("--defaults prints the defaults file alone"), "\(refused)")
  }

  @Test func aKeyLeftOutIsAnErrorThatNamesItAndTheFile() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let replacing = try folder.write("site/settings.json", #"{"flow": {"step_timeout": 3}}"#)
    for command in [["settings"], ["check", "examples/liveness.lua"]] {
      let outcome = try workbench(command + ["--settings-dir", folder.file("site")], folder: folder)
      #expect(outcome.status == 2, "\(outcome)")
      #expect(
        outcome.stderr.contains(
          "error: \(replacing) (key 'card.estimate_focal'): missing key 'card.estimate_focal': this file replaces configs/settings.json whole"
        ), "\(outcome)")
      #expect(outcome.stderr.contains("(key 'card.field_of_view'): missing key 'card.field_of_view'"), "\(outcome)")
      // The rest in one line, with what to do.
      #expect(outcome.stderr.contains("more keys missing: "), "\(outcome)")
      #expect(outcome.stderr.contains("messages.fallback, messages.language"), "\(outcome)")
      #expect(outcome.stderr.contains("--config FILE or --set instead"), "\(outcome)")
      #expect(!outcome.stderr.contains("flow.step_timeout"), "\(outcome)")
    }
  }

  @Test func aMessageCatalogReplacesTheBundledTextsWhenComplete() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let texts = try bundled("messages/en.json").replacingOccurrences(
      of: "\"face.blink\": \"Blink slowly\"", with: "\"face.blink\": \"Blink once, slowly\"")
    #expect(texts.contains("Blink once, slowly"))
    try folder.write("site/messages/en.json", texts)
    let run = [
      "run", "examples/liveness.lua", "--input", "examples/traces/liveness-pass.jsonl", "--quiet",
      "--events", folder.file("events.jsonl"), "--settings-dir", folder.file("site"),
    ]
    let outcome = try workbench(run, folder: folder)
    #expect(outcome.status == 0, "\(outcome)")
    let hints = try events(folder.file("events.jsonl")).filter { $0["type"] == "hint" }
    #expect(hints.contains { $0["key"] == "face.blink" && $0["text"] == "Blink once, slowly" }, "\(hints)")

    let incomplete = try folder.write("site/messages/en.json", #"{"face.blink": "Blink now"}"#)
    let refused = try workbench(run, folder: folder)
    #expect(refused.status == 2, "\(refused)")
    #expect(
      refused.stderr.contains("error: \(incomplete) (key 'face.look_straight'): missing key 'face.look_straight'"),
      "\(refused)")
  }

  @Test func aSettingsFolderThatIsNotThereIsAnError() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(["settings", "--settings-dir", folder.file("nothere")], folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(
      outcome.stderr.contains("error: \(folder.file("nothere")) (key '--settings-dir'): no such settings folder"),
      "\(outcome)")
  }
}
