import Foundation
import TestSupport
import Testing

/// The flow API's Lua is linted (Debian's luacheck, with .luacheckrc), and
/// its editor definitions (plugins/wb/meta/wb.lua) cover what it exports.
@Suite struct LuaLintTests {
  static let luacheck = ["/usr/bin/luacheck", "/usr/local/bin/luacheck"].first {
    FileManager.default.isExecutableFile(atPath: $0)
  }

  func run(_ program: String, _ arguments: [String], in folder: String) throws -> (Int32, String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: folder)
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self))
  }

  @Test func theWbLibraryAndTheExamplesPassLuacheck() throws {
    let luacheck = try #require(Self.luacheck, "luacheck is missing: scripts/install-test-deps installs it (lua-check)")
    let (status, output) = try run(luacheck, ["--no-color", "plugins/wb", "examples"], in: packageRoot)
    #expect(status == 0, "\(output)")
  }

  @Test func aNewFlowPassesLuacheckWithItsOwnConfig() throws {
    let luacheck = try #require(Self.luacheck, "luacheck is missing: scripts/install-test-deps installs it (lua-check)")
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    for kind in ["face", "card", "best-shot"] {
      _ = try workbench(["new", kind, "--kind", kind, "--in", folder.path], folder: folder)
      let (status, output) = try run(luacheck, ["--no-color", "."], in: folder.path + "/" + kind)
      #expect(status == 0, "\(kind): \(output)")
    }
  }

  /// Names exported by `require "wb"` and members of `ctx`, read from the
  /// library, against those the definitions declare.
  @Test func theDefinitionsCoverEveryExport() throws {
    let definitions = try #require(fileText(packageRoot + "/plugins/wb/meta/wb.lua"))
    var declared = Set<String>()
    for match in definitions.matches(of: /function (wb|Context)\.([A-Za-z_]+)\(/) {
      declared.insert("\(match.output.1).\(match.output.2)")
    }
    for match in definitions.matches(of: #/---@field ([A-Za-z_]+) /#) { declared.insert("field.\(match.output.1)") }

    let library = try #require(fileText(packageRoot + "/plugins/wb/init.lua"))
    var exported = Set<String>()
    for match in library.matches(of: /(?m)^(?:function )?wb\.([A-Za-z_]+)\s*[=(]/) {
      exported.insert(String(match.output.1))
    }
    #expect(exported.count >= 20, "\(exported)")
    for name in exported {
      #expect(declared.contains("wb.\(name)") || declared.contains("field.\(name)"), "wb.\(name) has no definition")
    }

    let runtime = try #require(fileText(packageRoot + "/plugins/wb/runtime.lua"))
    var members = Set<String>()
    for match in runtime.matches(of: /(?m)^\s*(?:function )?ctx\.([A-Za-z_]+)\s*[=(]/) {
      members.insert(String(match.output.1))
    }
    for match in runtime.matches(of: /local ctx = \{([^}]*)\}/) {
      for field in match.output.1.matches(of: /([A-Za-z_]+)\s*=/) { members.insert(String(field.output.1)) }
    }
    #expect(members.count >= 15, "\(members)")
    for name in members {
      #expect(
        declared.contains("Context.\(name)") || declared.contains("field.\(name)"), "ctx.\(name) has no definition")
    }
  }
}
