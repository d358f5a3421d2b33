import ArgumentParser
import Diagnostics
import Foundation
import Scaffold
import Settings

struct NewCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "new",
    abstract: "Start a flow: a folder with the flow, its messages, scenes, QA scenarios and editor settings.",
    discussion: """
      Writes NAME/NAME.lua (a working flow of the kind asked), NAME/messages/en.json and \
      zh-HK.json (its hints), NAME/scenes/ (synthetic scenes to test it on), NAME/qa/ (a \
      scenario that passes and one that fails with the reason it should), .luarc.json (the \
      flow API's definitions for the Lua language server) and .luacheckrc. 'workbench check' \
      and 'workbench test' pass on it as written.

      Examples:
        workbench new my-nod
        workbench check my-nod/my-nod.lua
        workbench test my-nod/qa
        workbench new id-check --kind card --in flows
      """)

  @Argument(help: ArgumentHelp("The flow's name, and its folder's.", valueName: "name"))
  var name: String

  @Option(name: .long, help: "What the flow checks: face (a blink and a head turn), card (a flip) or best-shot.")
  var kind: String = "face"

  @Option(name: .customLong("in"), help: ArgumentHelp("The folder to make it in.", valueName: "folder"))
  var parent: String = "."

  func validate() throws {
    guard FlowScaffold.Kind(rawValue: kind) != nil else {
      throw ValidationError(
        "--kind takes one of: " + FlowScaffold.Kind.allCases.map(\.rawValue).joined(separator: ", "))
    }
  }

  func run() throws {
    do {
      let home = try WorkbenchHome.locate()
      let files = try FlowScaffold.create(
        name: name, kind: FlowScaffold.Kind(rawValue: kind)!, parent: parent, home: home)
      let folder = WorkbenchHome.display((parent as NSString).appendingPathComponent(name))
      standardOutput(
        (["created \(folder)/ with:"] + files.map { "  \($0)" } + [
          "next:", "  workbench check \(folder)/\(name).lua", "  workbench test \(folder)/qa",
        ]).joined(separator: "\n"))
    } catch {
      throw fail(error)
    }
  }
}
