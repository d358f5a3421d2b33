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
    #expect(untouched["source"] == "built-in default", "\(untouched)")
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
          "error: \(replacing) (key 'messages.language'): missing key 'messages.language': this file replaces configs/settings.json whole"
        ), "\(outcome)")
      #expect(outcome.stderr.contains("(key 'messages.fallback'): missing key 'messages.fallback'"), "\(outcome)")
      #expect(!outcome.stderr.contains("'flow.step_timeout'"), "\(outcome)")
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
