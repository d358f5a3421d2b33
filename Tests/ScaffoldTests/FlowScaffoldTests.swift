import Diagnostics
import Foundation
import Settings
import TestSupport
import Testing

@testable import Scaffold

/// `workbench new`: which names can name a flow, and how the templates are
/// filled in, on a workbench folder of the test's own and on the real one.
@Suite struct FlowScaffoldTests {
  /// A workbench folder whose face template holds every placeholder.
  func home(in folder: TemporaryFolder) throws -> WorkbenchHome {
    try folder.write(
      "home/configs/templates/face/flow.lua", "-- {{name}} in {{folder}}\nlocal S = settings[\"{{id}}\"]\n")
    try folder.write("home/configs/templates/face/messages/en.json", "{\"{{id}}.blink\": \"Blink, {{name}}\"}\n")
    try folder.write("home/configs/templates/common/.luarc.json", "{\"workspace.library\": [\"{{meta}}\"]}\n")
    _ = try folder.subfolder("home/plugins/wb/meta")
    return WorkbenchHome(root: folder.file("home"))
  }

  func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

  @Test(arguments: ["a", "my-nod", "kiosk_2", "x" + String(repeating: "y", count: 63)])
  func lowerCaseNamesOfUpTo64Characters(name: String) throws {
    let folder = try TemporaryFolder(prefix: "scaffold-tests")
    defer { folder.remove() }
    let files = try FlowScaffold.create(
      name: name, kind: .face, parent: try folder.subfolder("flows"), home: try home(in: folder))
    #expect(files == [".luarc.json", "\(name).lua", "messages/en.json"].sorted())
  }

  @Test(arguments: [
    "", "9lives", "MyNod", "my nod", "-nod", "_nod", "nod!", "a/b", "../up", "wb", "ü",
    "x" + String(repeating: "y", count: 64),
  ])
  func otherNamesAreRefusedBeforeAnythingIsWritten(name: String) throws {
    let folder = try TemporaryFolder(prefix: "scaffold-tests")
    defer { folder.remove() }
    let flows = try folder.subfolder("flows")
    let error = try #require(throws: WorkbenchError.self) {
      try FlowScaffold.create(name: name, kind: .face, parent: flows, home: try home(in: folder))
    }
    #expect(error.status == .usage)
    #expect(error.diagnostics.map(\.message) == ["'\(name)' cannot name a flow"])
    #expect(error.diagnostics.first?.help?.contains("not wb") == true)
    #expect(try FileManager.default.contentsOfDirectory(atPath: flows).isEmpty)
  }

  @Test func everyPlaceholderIsFilledIn() throws {
    let folder = try TemporaryFolder(prefix: "scaffold-tests")
    defer { folder.remove() }
    let flows = try folder.subfolder("flows")
    _ = try FlowScaffold.create(name: "my-nod", kind: .face, parent: flows, home: try home(in: folder))
    let made = flows + "/my-nod"
    // The flow file takes the flow's name; the settings group uses '_' for '-'.
    #expect(
      try text(made + "/my-nod.lua")
        == "-- my-nod in \(WorkbenchHome.display(made))\nlocal S = settings[\"my_nod\"]\n")
    #expect(try text(made + "/messages/en.json") == "{\"my_nod.blink\": \"Blink, my-nod\"}\n")
    // The flow API's definitions relative to the new folder, so that the two move together.
    #expect(try text(made + "/.luarc.json") == "{\"workspace.library\": [\"../../home/plugins/wb/meta\"]}\n")
    #expect(FileManager.default.fileExists(atPath: made + "/../../home/plugins/wb/meta"))
    // Made under a temporary name and renamed: nothing else is left beside it.
    #expect(try FileManager.default.contentsOfDirectory(atPath: flows) == ["my-nod"])
  }

  @Test func theDefinitionsPathIsEscapedForItsJSONString() {
    let home = WorkbenchHome(root: #"/w/we"ird\home"#)
    #expect(FlowScaffold.metaPath(from: "/w/flows/nod", home: home) == #"../../we\"ird\\home/plugins/wb/meta"#)
    #expect(FlowScaffold.metaPath(from: "/w/plugins/wb/meta", home: WorkbenchHome(root: "/w")) == ".")
  }

  @Test func aFolderThatExistsIsNotTouched() throws {
    let folder = try TemporaryFolder(prefix: "scaffold-tests")
    defer { folder.remove() }
    let flows = try folder.subfolder("flows")
    let kept = try folder.write("flows/taken/notes.txt", "mine")
    let error = try #require(throws: WorkbenchError.self) {
      try FlowScaffold.create(name: "taken", kind: .face, parent: flows, home: try home(in: folder))
    }
    #expect(error.diagnostics.map(\.message) == ["already exists"])
    #expect(try FileManager.default.contentsOfDirectory(atPath: flows + "/taken") == ["notes.txt"])
    #expect(try text(kept) == "mine")
  }

  @Test func aKindWithoutItsTemplateSaysTheWorkbenchFolderIsIncomplete() throws {
    let folder = try TemporaryFolder(prefix: "scaffold-tests")
    defer { folder.remove() }
    let flows = try folder.subfolder("flows")
    let error = try #require(throws: WorkbenchError.self) {
      try FlowScaffold.create(name: "my-card", kind: .card, parent: flows, home: try home(in: folder))
    }
    #expect(error.diagnostics.map(\.message) == ["no template for 'card' flows"])
    #expect(try FileManager.default.contentsOfDirectory(atPath: flows).isEmpty)
  }

  @Test(arguments: FlowScaffold.Kind.allCases)
  func theShippedTemplatesLeaveNoPlaceholder(kind: FlowScaffold.Kind) throws {
    let folder = try TemporaryFolder(prefix: "scaffold-tests")
    defer { folder.remove() }
    let files = try FlowScaffold.create(
      name: "my-flow", kind: kind, parent: folder.path, home: WorkbenchHome(root: packageRoot()))
    #expect(files.contains("my-flow.lua") && files.contains(".luarc.json"))
    for file in files {
      #expect(try !text(folder.file("my-flow/" + file)).contains("{{"), "\(kind): \(file)")
    }
  }
}
