import Foundation
import JSONCore
import Scripting
import TestSupport

/// A host that records calls and answers from a script.
final class RecordingHost: ScriptHost {
  var calls: [(String, [JSONValue])] = []
  var answer: (String, [JSONValue]) throws(HostCallFailure) -> String? = { _, _ in nil }
  var functionNames = ["log", "hint", "status", "settings", "text", "event", "capture", "intermediate"]

  func call(_ function: String, arguments: [JSONValue]) throws(HostCallFailure) -> String? {
    calls.append((function, arguments))
    return try answer(function, arguments)
  }
}

enum Repository {
  static var plugins: String { packageRootPath + "/plugins" }
}

/// A VM with the repository's step library on its require path.
func makeVM(
  limits: ScriptLimits = ScriptLimits(memoryLimit: 16 << 20, instructionLimit: 1_000_000),
  host: RecordingHost = RecordingHost(), extraRoot: String? = nil
) throws -> LuaVM {
  let vm = try LuaVM(limits: limits, host: host)
  if let extraRoot { vm.addRequireRoot(directory: extraRoot, display: "flows") }
  vm.addRequireRoot(directory: Repository.plugins, display: "plugins")
  vm.setLibraryPrefix("plugins/wb/")
  return vm
}

func temporaryFolder() throws -> String { try TemporaryFolder(prefix: "scripting-tests").path }

/// Runs code and returns the error it raised (nil if none).
func scriptError(_ vm: LuaVM, _ code: String, chunk: String = "test.lua") -> ScriptError? {
  do {
    try vm.runString(code, chunkName: chunk)
    return nil
  } catch {
    return error
  }
}
