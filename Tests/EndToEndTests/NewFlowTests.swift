import Foundation
import TestSupport
import Testing

/// `workbench new`: every kind of flow it writes checks and passes its QA
/// scenarios as written, and the failing scenario fails for its reason.
@Suite struct NewFlowTests {
  @Test(arguments: ["face", "card", "best-shot"])
  func aNewFlowChecksAndPassesItsScenarios(kind: String) throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let environment: [String: String?] = ["WORKBENCH_SYNTH_CACHE": folder.file("cache")]
    let made = try workbench(["new", "my-\(kind)", "--kind", kind, "--in", folder.path], folder: folder)
    #expect(made.status == 0, "\(made)")
    let flowFolder = folder.path + "/my-\(kind)"
    for file in ["my-\(kind).lua", "messages/en.json", "messages/zh-HK.json", ".luarc.json", ".luacheckrc"] {
      #expect(FileManager.default.fileExists(atPath: flowFolder + "/" + file), "\(file): \(made)")
    }
    #expect(made.stdout.contains("workbench test"), "\(made)")

    let check = try workbench(["check", flowFolder + "/my-\(kind).lua"], folder: folder, environment: environment)
    #expect(check.status == 0, "\(check)")
    #expect(!check.stderr.contains("warning"), "\(check)")

    let suite = try workbench(["test", flowFolder + "/qa"], folder: folder, environment: environment)
    #expect(suite.status == 0, "\(suite)")
    #expect(suite.stdout.contains("# 2 of 2 scenarios passed"), "\(suite)")

    // The flow's own folder: its scenarios run, and the flow beside them is no scenario.
    let whole = try workbench(["test", flowFolder], folder: folder, environment: environment)
    #expect(whole.status == 0, "\(whole)")
    #expect(whole.stdout.contains("# 2 of 2 scenarios passed"), "\(whole)")
    #expect(whole.stderr.contains("my-\(kind).lua is a flow, not a scenario file: skipped"), "\(whole)")
    let named = try workbench(["test", flowFolder + "/my-\(kind).lua"], folder: folder, environment: environment)
    #expect(named.status == 2, "\(named)")
    #expect(named.stderr.contains("is a flow, not a scenario file"), "\(named)")
    #expect(named.stderr.contains("workbench test \(flowFolder)/qa"), "\(named)")

    // The editor settings point at the flow API's definitions.
    let luarc = try #require(fileText(flowFolder + "/.luarc.json"))
    let library = try #require(
      (try JSONSerialization.jsonObject(with: Data(luarc.utf8)) as? [String: Any])?["workspace.library"] as? [String])
    // Relative to the flow's folder, so that it moves with a checkout.
    #expect(library.allSatisfy { !$0.hasPrefix("/") }, "\(luarc)")
    #expect(
      library.allSatisfy { FileManager.default.fileExists(atPath: flowFolder + "/" + $0 + "/wb.lua") }, "\(luarc)")
  }

  @Test func aNameThatIsTakenOrInvalidIsAClearError() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let flows = try folder.subfolder("flows")
    _ = try workbench(["new", "taken", "--in", flows], folder: folder)
    let again = try workbench(["new", "taken", "--in", flows], folder: folder)
    #expect(again.status == 2, "\(again)")
    #expect(again.stderr.contains("taken: already exists"), "\(again)")
    for name in ["9 lives", "MyNod", "wb"] {
      let invalid = try workbench(["new", name, "--in", flows], folder: folder)
      #expect(invalid.status == 2)
      #expect(invalid.stderr.contains("'\(name)' cannot name a flow"), "\(invalid)")
    }
    let kind = try workbench(["new", "x", "--kind", "hand", "--in", flows], folder: folder)
    #expect(kind.status == 2)
    #expect(kind.stderr.contains("--kind takes one of: face, card, best-shot"), "\(kind)")
    // Nothing half-made is left behind.
    let entries = try FileManager.default.contentsOfDirectory(atPath: flows)
    #expect(entries.sorted() == ["taken"], "\(entries)")
  }
}
