import Diagnostics
import Foundation
import JSONCore
import Messages
import TestSupport
import Testing

@Suite struct CatalogLoadingTests {
  @Test func loadsEveryLanguageOfAFolder() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let base = try folder.subfolder("base")
    try folder.write("base/en.json", #"{"greet": "Hello", "bye": "Goodbye"}"#)
    try folder.write("base/zh-HK.json", #"{"greet": "你好"}"#)
    try folder.write("base/README.md", "not a catalog")
    try folder.write("base/notes.txt", "{ not json")

    let catalogs = try MessageCatalogs.load(directories: [base])
    #expect(catalogs.languages == ["en", "zh-HK"])
    #expect(catalogs.text(for: "greet", language: "en", fallback: "en") == LocalizedText(text: "Hello", language: "en"))
    #expect(
      catalogs.text(for: "greet", language: "zh-HK", fallback: "en") == LocalizedText(text: "你好", language: "zh-HK"))
    #expect(catalogs.contains("bye", language: "en"))
    #expect(!catalogs.contains("bye", language: "zh-HK"))
    #expect(catalogs.files(of: "en") == [base + "/en.json"])
    #expect(catalogs.files(of: "fr").isEmpty)
  }

  @Test func laterFoldersOverrideEarlierOnes() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let configs = try folder.subfolder("configs/messages")
    let flow = try folder.subfolder("flow/messages")
    try folder.write("configs/messages/en.json", #"{"a": "A from configs", "b": "B from configs"}"#)
    try folder.write("flow/messages/en.json", #"{"b": "B from the flow", "c": "C from the flow"}"#)
    try folder.write("flow/messages/fr.json", #"{"a": "A en français"}"#)

    let catalogs = try MessageCatalogs.load(directories: [configs, flow])
    #expect(catalogs.text(for: "a", language: "en", fallback: "en")?.text == "A from configs")
    #expect(catalogs.text(for: "b", language: "en", fallback: "en")?.text == "B from the flow")
    #expect(catalogs.text(for: "c", language: "en", fallback: "en")?.text == "C from the flow")
    #expect(catalogs.languages == ["en", "fr"])
    #expect(catalogs.files(of: "en") == [configs + "/en.json", flow + "/en.json"])

    // The other order: configs win.
    let reversed = try MessageCatalogs.load(directories: [flow, configs])
    #expect(reversed.text(for: "b", language: "en", fallback: "en")?.text == "B from configs")
    #expect(reversed.text(for: "c", language: "en", fallback: "en")?.text == "C from the flow")
  }

  @Test func aFolderPathWithATrailingSlashWorks() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let file = try folder.write("en.json", #"{"k": "v"}"#)
    let catalogs = try MessageCatalogs.load(directories: [folder.path + "/"])
    #expect(catalogs.text(for: "k", language: "en", fallback: "en")?.text == "v")
    #expect(catalogs.files(of: "en") == [file])
  }

  @Test func missingFoldersAddNothing() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    try folder.write("en.json", #"{"k": "v"}"#)
    let catalogs = try MessageCatalogs.load(directories: [folder.path + "/does-not-exist", folder.path])
    #expect(catalogs.languages == ["en"])
    #expect(try MessageCatalogs.load(directories: [folder.path + "/nope"]).languages.isEmpty)
  }

  @Test func nestedObjectsGiveDottedKeys() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    try folder.write("en.json", #"{"face": {"blink": "Blink", "turn": {"left": "Left"}}, "flat.key": "Flat"}"#)
    let catalogs = try MessageCatalogs.load(directories: [folder.path])
    #expect(catalogs.text(for: "face.blink", language: "en", fallback: "en")?.text == "Blink")
    #expect(catalogs.text(for: "face.turn.left", language: "en", fallback: "en")?.text == "Left")
    #expect(catalogs.text(for: "flat.key", language: "en", fallback: "en")?.text == "Flat")
    #expect(catalogs.text(for: "face", language: "en", fallback: "en") == nil)
  }

  @Test func invalidJSONNamesTheFileAndLine() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let file = try folder.write("en.json", "{\n  \"a\": \"A\",\n  \"b\": \"B\"\n  \"c\": \"C\"\n}\n")
    let error = try #require(throws: WorkbenchError.self) {
      try MessageCatalogs.load(directories: [folder.path])
    }
    #expect(error.status == .usage)
    let diagnostic = try #require(error.diagnostics.first)
    #expect(diagnostic.location?.file == file)
    #expect(diagnostic.location?.line == 4)
    #expect(diagnostic.message.contains("not valid JSON"))
    #expect(error.description.contains(file + ":4"))
  }

  @Test func duplicateKeysInACatalogAreAnError() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let file = try folder.write("en.json", "{\"a\": \"one\",\n\"a\": \"two\"}")
    let error = try #require(throws: WorkbenchError.self) {
      try MessageCatalogs.load(directories: [folder.path])
    }
    #expect(error.diagnostics.first?.location == Diagnostics.SourceLocation(file: file, line: 2))
    #expect(error.diagnostics.first?.message.contains("duplicate key") == true)
  }

  @Test func aCatalogMustBeAnObject() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let file = try folder.write("en.json", #"["a", "b"]"#)
    let error = try #require(throws: WorkbenchError.self) {
      try MessageCatalogs.load(directories: [folder.path])
    }
    #expect(error.status == .usage)
    #expect(error.diagnostics.first?.location?.file == file)
    #expect(error.diagnostics.first?.message.contains("JSON object") == true)
  }

  @Test func textsMustBeStringsAndEveryBadOneIsNamed() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let file = try folder.write("en.json", #"{"ok": "fine", "count": 3, "group": {"flag": true}}"#)
    let error = try #require(throws: WorkbenchError.self) {
      try MessageCatalogs.load(directories: [folder.path])
    }
    #expect(error.status == .usage)
    #expect(error.diagnostics.count == 2)
    #expect(
      error.diagnostics.map(\.location) == [
        Diagnostics.SourceLocation(file: file, key: "count"), Diagnostics.SourceLocation(file: file, key: "group.flag"),
      ])
    #expect(error.diagnostics[0].message.contains("not integer"))
    #expect(error.diagnostics[1].message.contains("not boolean"))
  }

  @Test func anUnreadableFileIsAnError() throws {
    var catalogs = MessageCatalogs()
    let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-\(UUID().uuidString).json")
      .path
    let error = try #require(throws: WorkbenchError.self) {
      try catalogs.add(file: missing, language: "en")
    }
    #expect(error.status == .usage)
    #expect(error.diagnostics.first?.location?.file == missing)
    #expect(catalogs.languages.isEmpty)
  }
}

@Suite struct FallbackTests {
  private func catalogs() throws -> (MessageCatalogs, TemporaryFolder) {
    let folder = try TemporaryFolder()
    try folder.write("en.json", #"{"both": "Both (en)", "english only": "English only"}"#)
    try folder.write("zh-HK.json", #"{"both": "兩者", "chinese only": "只有中文"}"#)
    return (try MessageCatalogs.load(directories: [folder.path]), folder)
  }

  @Test func theChosenLanguageComesFirst() throws {
    let (catalogs, folder) = try catalogs()
    defer { folder.remove() }
    #expect(
      catalogs.text(for: "both", language: "zh-HK", fallback: "en") == LocalizedText(text: "兩者", language: "zh-HK"))
    #expect(
      catalogs.text(for: "both", language: "en", fallback: "zh-HK") == LocalizedText(text: "Both (en)", language: "en"))
  }

  @Test func aMissingKeyFallsBackAndSaysWhichLanguage() throws {
    let (catalogs, folder) = try catalogs()
    defer { folder.remove() }
    #expect(
      catalogs.text(for: "english only", language: "zh-HK", fallback: "en")
        == LocalizedText(text: "English only", language: "en"))
    #expect(
      catalogs.text(for: "chinese only", language: "en", fallback: "zh-HK")
        == LocalizedText(text: "只有中文", language: "zh-HK"))
  }

  @Test func anUnknownLanguageUsesTheFallback() throws {
    let (catalogs, folder) = try catalogs()
    defer { folder.remove() }
    #expect(
      catalogs.text(for: "both", language: "fr", fallback: "en") == LocalizedText(text: "Both (en)", language: "en"))
  }

  @Test func aKeyInNeitherLanguageIsNil() throws {
    let (catalogs, folder) = try catalogs()
    defer { folder.remove() }
    #expect(catalogs.text(for: "chinese only", language: "en", fallback: "en") == nil)
    #expect(catalogs.text(for: "nowhere", language: "zh-HK", fallback: "en") == nil)
  }

  @Test func parametersAreSubstitutedInTheFallbackText() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    try folder.write("en.json", #"{"left": "{seconds} s left"}"#)
    try folder.write("zh-HK.json", #"{}"#)
    let catalogs = try MessageCatalogs.load(directories: [folder.path])
    let text = catalogs.text(
      for: "left", language: "zh-HK", fallback: "en", parameters: JSONObject([("seconds", .number(2.34))]))
    #expect(text == LocalizedText(text: "2.3 s left", language: "en"))
  }
}

@Suite struct SubstitutionTests {
  private func substitute(_ template: String, _ parameters: [(String, JSONValue)]?) -> String {
    MessageCatalogs.substitute(template, parameters.map { JSONObject($0) })
  }

  @Test func stringsAndIntegers() {
    #expect(substitute("Hello, {name}!", [("name", "Ada")]) == "Hello, Ada!")
    #expect(substitute("{count} faces", [("count", 2)]) == "2 faces")
    #expect(substitute("{a}{b}{a}", [("a", "x"), ("b", "y")]) == "xyx")
    #expect(substitute("{big}", [("big", .integer(Int64.max))]) == "9223372036854775807")
  }

  @Test func numbersAreRoundedToOneDecimal() {
    #expect(substitute("{s} s", [("s", 2.345)]) == "2.3 s")
    #expect(substitute("{s} s", [("s", 2.35001)]) == "2.4 s")
    #expect(substitute("{s} s", [("s", 0.04)]) == "0 s")
    #expect(substitute("{s} s", [("s", 2.96)]) == "3 s")
    #expect(substitute("{s} s", [("s", 7.0)]) == "7 s")
    #expect(substitute("{s} s", [("s", -1.26)]) == "-1.3 s")
    #expect(substitute("{s} s", [("s", 12.5)]) == "12.5 s")
  }

  @Test func hugeAndNonFiniteNumbersDoNotCrash() {
    // These used to trap converting to Int64.
    #expect(substitute("{n}", [("n", 1e20)]) == "1e+20")
    #expect(substitute("{n}", [("n", -1e300)]) == JSONValue.number(-1e300).jsonText)
    #expect(substitute("{n}", [("n", .number(.infinity))]) == "null")
    #expect(substitute("{n}", [("n", .number(.nan))]) == "null")
    #expect(substitute("{n}", [("n", 123_456_789_012.34)]) == "123456789012.3")
  }

  @Test func otherValuesAreWrittenAsJSON() {
    #expect(substitute("{flag}", [("flag", true)]) == "true")
    #expect(substitute("{none}", [("none", nil)]) == "null")
    #expect(substitute("{list}", [("list", [1, "a"])]) == #"[1,"a"]"#)
  }

  @Test func missingParametersAreLeftAsTheyAre() {
    #expect(substitute("{seconds} s left", []) == "{seconds} s left")
    #expect(substitute("{seconds} s left", nil) == "{seconds} s left")
    #expect(substitute("{a} and {b}", [("a", 1)]) == "1 and {b}")
  }

  @Test func doubledBracesAreLiteralBraces() {
    #expect(substitute("{{literal}}", [("literal", "no")]) == "{literal}")
    #expect(substitute("{{{x}}}", [("x", 5)]) == "{5}")
    #expect(substitute("a {{ b }} c", nil) == "a { b } c")
    #expect(substitute("set {{ {n} }}", [("n", 3)]) == "set { 3 }")
  }

  @Test func unmatchedBracesAreKept() {
    #expect(substitute("open { only", [("x", 1)]) == "open { only")
    #expect(substitute("close } only", [("x", 1)]) == "close } only")
  }

  @Test func textWithoutBracesIsUnchanged() {
    #expect(substitute("請直視鏡頭", [("x", 1)]) == "請直視鏡頭")
  }

  @Test func placeholdersOfATemplate() {
    #expect(MessageCatalogs.placeholders(in: "{seconds} s left") == ["seconds"])
    #expect(MessageCatalogs.placeholders(in: "{a} {b} {a}") == ["a", "b"])
    #expect(MessageCatalogs.placeholders(in: "{{not}} a placeholder") == [])
    #expect(MessageCatalogs.placeholders(in: "none") == [])
    #expect(MessageCatalogs.placeholders(in: "尚餘 {seconds} 秒") == ["seconds"])
  }
}

@Suite struct CatalogProblemTests {
  @Test func missingKeysAreReportedPerLanguage() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let en = try folder.write("en.json", #"{"a": "A", "b": "B"}"#)
    let zh = try folder.write("zh-HK.json", #"{"a": "甲"}"#)
    let catalogs = try MessageCatalogs.load(directories: [folder.path])

    let problems = catalogs.problems(forKeys: ["b", "a", "b", "c"])
    let messages = problems.map(\.message)
    #expect(
      messages == [
        "message key 'b' is missing from the 'zh-HK' catalog",
        "message key 'c' is missing from the 'en' catalog",
        "message key 'c' is missing from the 'zh-HK' catalog",
      ])
    #expect(
      problems.map(\.location) == [
        Diagnostics.SourceLocation(file: zh, key: "b"), Diagnostics.SourceLocation(file: en, key: "c"),
        Diagnostics.SourceLocation(file: zh, key: "c"),
      ])
    #expect(problems[0].help?.contains("\"b\"") == true)
    #expect(catalogs.problems(forKeys: ["a"]).isEmpty)
    #expect(catalogs.problems(forKeys: []).isEmpty)
  }

  @Test func theLastFileOfALanguageIsNamed() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let first = try folder.subfolder("configs")
    let second = try folder.subfolder("flow")
    try folder.write("configs/en.json", #"{"a": "A"}"#)
    try folder.write("configs/fr.json", #"{"a": "A (fr)"}"#)
    let flowFR = try folder.write("flow/fr.json", #"{"x": "X"}"#)
    try folder.write("flow/en.json", #"{"b": "B"}"#)
    let catalogs = try MessageCatalogs.load(directories: [first, second])
    let problems = catalogs.problems(forKeys: ["b"])
    #expect(problems.map(\.location) == [Diagnostics.SourceLocation(file: flowFR, key: "b")])
  }

  @Test func placeholderMismatchesAreReported() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    try folder.write("en.json", #"{"left": "{seconds} s left", "same": "{a} then {b}", "lit": "{{x}}"}"#)
    let zh = try folder.write("zh-HK.json", #"{"left": "尚餘 {secs} 秒", "same": "{b}，然後 {a}", "lit": "{{y}}"}"#)
    let catalogs = try MessageCatalogs.load(directories: [folder.path])

    let problems = catalogs.problems(forKeys: ["left", "same", "lit"])
    try #require(problems.count == 1)
    #expect(problems[0].message == "message 'left' uses placeholders {seconds} in 'en' but {secs} in 'zh-HK'")
    #expect(problems[0].location == Diagnostics.SourceLocation(file: zh, key: "left"))
    #expect(problems[0].help?.contains("same {param} names") == true)
  }

  @Test func aMissingPlaceholderIsAMismatch() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    try folder.write("en.json", #"{"k": "{n} of {m}"}"#)
    try folder.write("zh-HK.json", #"{"k": "{n}"}"#)
    let catalogs = try MessageCatalogs.load(directories: [folder.path])
    let problems = catalogs.problems(forKeys: ["k"])
    #expect(problems.map(\.message) == ["message 'k' uses placeholders {m}, {n} in 'en' but {n} in 'zh-HK'"])
  }

  @Test func noCatalogsAtAllIsOneProblem() {
    let problems = MessageCatalogs().problems(forKeys: ["a", "b"])
    #expect(problems.count == 1)
    #expect(problems.first?.message == "no message catalogs were found")
  }
}

@Suite struct ShippedCatalogTests {
  private static let folder = packageRoot() + "/configs/messages"

  private static func keys(_ language: String) throws -> [String: String] {
    let path = folder + "/" + language + ".json"
    let data = try #require(FileManager.default.contents(atPath: path))
    let value = try JSONParser.parse(bytes: Array(data))
    var texts: [String: String] = [:]
    func flatten(_ object: JSONObject, _ prefix: String) {
      for (key, value) in object {
        switch value {
        case .string(let text): texts[prefix + key] = text
        case .object(let nested): flatten(nested, prefix + key + ".")
        default: Issue.record("\(path): '\(prefix + key)' is not a text")
        }
      }
    }
    flatten(try #require(value.objectValue), "")
    return texts
  }

  @Test func englishAndChineseHaveTheSameKeys() throws {
    let en = try Self.keys("en")
    let zh = try Self.keys("zh-HK")
    #expect(!en.isEmpty)
    #expect(Set(en.keys).subtracting(zh.keys).sorted() == [], "keys missing from zh-HK.json")
    #expect(Set(zh.keys).subtracting(en.keys).sorted() == [], "keys missing from en.json")
  }

  @Test func englishAndChineseUseTheSamePlaceholders() throws {
    let en = try Self.keys("en")
    let zh = try Self.keys("zh-HK")
    for (key, text) in en.sorted(by: { $0.key < $1.key }) {
      guard let other = zh[key] else { continue }
      #expect(
        MessageCatalogs.placeholders(in: text) == MessageCatalogs.placeholders(in: other),
        "placeholders of '\(key)' differ: \(text) / \(other)")
    }
  }

  @Test func theCatalogsLoadAndReportNoProblems() throws {
    let catalogs = try MessageCatalogs.load(directories: [Self.folder])
    #expect(catalogs.languages == ["en", "zh-HK"])
    let keys = Array(try Self.keys("en").keys) + Array(try Self.keys("zh-HK").keys)
    #expect(catalogs.problems(forKeys: keys).map(\.description) == [])
    // Every result reason the engine reports has a text in both languages.
    for reason in [
      "passed", "step_failed", "step_timeout", "time_limit", "end_of_input", "script_error", "limit_exceeded",
      "input_error",
    ] {
      for language in ["en", "zh-HK"] {
        #expect(catalogs.contains("result." + reason, language: language), "result.\(reason) in \(language)")
      }
    }
  }
}
