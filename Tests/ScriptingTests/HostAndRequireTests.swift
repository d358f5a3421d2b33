import Foundation
import JSONCore
import Scripting
import Testing

@Suite("Host calls and require")
struct HostAndRequireTests {
  @Test("arguments reach the host as JSON and the answer comes back as Lua values")
  func nativeCall() throws {
    let host = RecordingHost()
    host.answer = { function, _ in function == "settings" ? "{ flow = { time_limit = 30 } }, 'second'" : nil }
    let vm = try makeVM(host: host)
    let error = scriptError(
      vm,
      """
      local native = require "wb.native"
      native.status("ORTH", { ratio = 0.25, ok = true, list = { 1, 2, 3 }, name = "x\\n\\"y\\"" })
      local answer, second = native.settings({})
      assert(answer.flow.time_limit == 30 and second == "second")
      """)
    #expect(error == nil, "\(String(describing: error))")
    let status = try #require(host.calls.first { $0.0 == "status" })
    #expect(status.1.first == .string("ORTH"))
    let fields = try #require(status.1.last?.objectValue)
    #expect(fields["ratio"] == .number(0.25))
    #expect(fields["ok"] == .bool(true))
    #expect(fields["list"] == .array([.integer(1), .integer(2), .integer(3)]))
    #expect(fields["name"] == .string("x\n\"y\""))
  }

  @Test("the host's functions are the ones it names: others are not there, and print needs one named log")
  func functionsByName() throws {
    let host = RecordingHost()
    host.functionNames = ["greet", "greet", ""]
    host.answer = { function, arguments in "'hello ' .. \(arguments.first?.jsonText ?? "nil")" }
    let vm = try makeVM(host: host)
    let error = scriptError(
      vm,
      """
      local native = require "wb.native"
      assert(native.greet("you") == "hello you")
      assert(native.hint == nil and native.log == nil)
      print("nobody hears this")
      """)
    #expect(error == nil, "\(String(describing: error))")
    #expect(host.calls.map(\.0) == ["greet"])
  }

  @Test("a host failure becomes a Lua error at the script's line")
  func hostFailure() throws {
    let host = RecordingHost()
    host.answer = { _, _ throws(HostCallFailure) in throw HostCallFailure("no such message") }
    let vm = try makeVM(host: host)
    let error = try #require(scriptError(vm, "local native = require 'wb.native'\n\nnative.hint('nope')"))
    #expect(error.message == "test.lua:3: no such message")
  }

  @Test("a host failure can be caught with pcall like any Lua error")
  func hostFailureCatchable() throws {
    let host = RecordingHost()
    host.answer = { _, _ throws(HostCallFailure) in throw HostCallFailure("refused") }
    let vm = try makeVM(host: host)
    let error = scriptError(
      vm,
      """
      local native = require 'wb.native'
      local ok, message = pcall(native.text, 'x')
      assert(not ok and message:find('refused'))
      """)
    #expect(error == nil, "\(String(describing: error))")
  }

  @Test("functions cannot cross to the host but are named")
  func functionsStayInLua() throws {
    let host = RecordingHost()
    let vm = try makeVM(host: host)
    #expect(scriptError(vm, "require('wb.native').event('x', { f = print })") == nil)
    #expect(host.calls.first?.1.last?["f"] == .object(JSONObject([("$function", .bool(true))])))
  }

  @Test("where is the VM's own: the caller's line, past the library's frames, also in a coroutine")
  func whereNamesTheCaller() throws {
    let folder = try temporaryFolder()
    try "local native = require 'wb.native'\nreturn { at = function() return native.where(1) end }"
      .write(toFile: folder + "/library.lua", atomically: true, encoding: .utf8)
    let host = RecordingHost()
    let vm = try makeVM(host: host, extraRoot: folder)
    vm.setLibraryPrefix("flows/")
    let error = scriptError(
      vm,
      """
      local native = require 'wb.native'
      assert(native.where() == "test.lua:2: ", native.where())
      assert(require("library").at() == "test.lua:3: ")
      assert(coroutine.wrap(function() return native.where(1) end)() == "test.lua:4: ")
      local ok, message = pcall(native.where, "up")
      assert(not ok and message:find("bad argument #1 to 'where' (number expected, got string)", 1, true), message)
      """)
    #expect(error == nil, "\(String(describing: error))")
    #expect(host.calls.isEmpty)
  }

  @Test("require finds modules in the roots, in order, and caches them")
  func requireRoots() throws {
    let folder = try temporaryFolder()
    try "return { value = 41 }".write(toFile: folder + "/helper.lua", atomically: true, encoding: .utf8)
    try FileManager.default.createDirectory(atPath: folder + "/pkg", withIntermediateDirectories: true)
    try "return { value = 1 }".write(toFile: folder + "/pkg/init.lua", atomically: true, encoding: .utf8)
    let vm = try makeVM(extraRoot: folder)
    let error = scriptError(
      vm,
      """
      local helper = require "helper"
      helper.value = helper.value + 1
      assert(require("helper").value == 42)
      assert(require("pkg").value == 1)
      assert(type(require("wb").flow) == "function")
      """)
    #expect(error == nil, "\(String(describing: error))")
  }

  @Test("require refuses names that would leave the roots", arguments: ["../secret", "/etc/passwd", "a..b", ".hidden"])
  func requireEscapes(name: String) throws {
    let vm = try makeVM()
    let error = try #require(scriptError(vm, "require '\(name)'"))
    #expect(error.message.contains("is not allowed"))
  }

  @Test("a missing module lists where it was looked for")
  func requireMissing() throws {
    let folder = try temporaryFolder()
    let vm = try makeVM(extraRoot: folder)
    let error = try #require(scriptError(vm, "require 'socket.core'"))
    #expect(error.message.contains("module 'socket.core' not found"))
    #expect(error.message.contains("flows/socket/core.lua"))
    #expect(error.message.contains("plugins/socket/core.lua"))
  }

  @Test("a module's syntax error names the module file")
  func requireSyntaxError() throws {
    let folder = try temporaryFolder()
    try "return {".write(toFile: folder + "/broken.lua", atomically: true, encoding: .utf8)
    let vm = try makeVM(extraRoot: folder)
    let error = try #require(scriptError(vm, "require 'broken'"))
    #expect(error.message.hasPrefix("flows/broken.lua:1:"))
  }

  @Test("a file compiled before is compiled anew when its text changes, and keeps its lines")
  func compiledChunksFollowTheirText() throws {
    let folder = try temporaryFolder()
    let flow = folder + "/flow.lua"
    let module = folder + "/helper.lua"
    func run() throws -> (value: JSONValue?, error: ScriptError?) {
      let host = RecordingHost()
      let vm = try makeVM(host: host, extraRoot: folder)
      do {
        try vm.runFile(path: flow, chunkName: "flows/flow.lua")
      } catch {
        return (nil, error)
      }
      return (host.calls.first?.1.last, nil)
    }
    try "require('wb.native').event('v', require('helper').value)".write(
      toFile: flow, atomically: true, encoding: .utf8)
    for value in [1, 2, 2] {
      try "return { value = \(value) }".write(toFile: module, atomically: true, encoding: .utf8)
      #expect(try run().value == .integer(Int64(value)))
    }
    for _ in 0..<2 {
      try "local x = 1\n\nerror('third line')".write(toFile: flow, atomically: true, encoding: .utf8)
      let error = try #require(try run().error)
      #expect(error.message.hasPrefix("flows/flow.lua:3: third line"), "\(error.message)")
    }
  }

  @Test("a flow file that cannot be read is reported as such")
  func unreadableFile() throws {
    let vm = try makeVM()
    do {
      try vm.runFile(path: "/nonexistent/flow.lua", chunkName: "flow.lua")
      Issue.record("expected an error")
    } catch {
      #expect(error.kind == .unreadableFile)
      #expect(error.message.contains("cannot read flow.lua"))
    }
  }

  @Test("math.random follows the seed")
  func seededRandom() throws {
    func draw(_ seed: Int64) throws -> [JSONValue] {
      let host = RecordingHost()
      let vm = try makeVM(host: host)
      vm.seedRandom(seed)
      _ = scriptError(
        vm, "require('wb.native').event('r', { math.random(1000), math.random(1000), math.random(1000) })")
      return host.calls.first?.1.last?.arrayValue ?? []
    }
    #expect(try draw(7) == (try draw(7)))
    #expect(try draw(7) != (try draw(8)))
  }
}

@Suite("Lua literals")
struct LuaLiteralTests {
  @Test("host answers survive the trip into Lua")
  func roundTrip() throws {
    let value: JSONValue = [
      "text": "quote \" backslash \\ newline \n tab \t bell \u{7} then 1", "chinese": "請直視鏡頭",
      "n": 0.1, "whole": 3.0, "i": 42, "list": [1, 2, 3], "nested": ["deep": [true, false]],
    ]
    let literal = LuaLiteral.encode(value)
    let host = RecordingHost()
    host.answer = { _, _ in literal }
    let vm = try makeVM(host: host)
    let error = scriptError(
      vm,
      """
      local native = require 'wb.native'
      local v = native.text('x')
      native.event('echo', v)
      assert(math.type(v.whole) == "float" and math.type(v.i) == "integer")
      """)
    #expect(error == nil, "\(String(describing: error))")
    #expect(host.calls.last?.1.last.map(canonical) == canonical(value))
  }

  /// Lua tables have no key order: compare objects with sorted keys.
  private func canonical(_ value: JSONValue) -> JSONValue {
    switch value {
    case .object(let object):
      return .object(JSONObject(object.entries.sorted { $0.key < $1.key }.map { ($0.key, canonical($0.value)) }))
    case .array(let array): return .array(array.map(canonical))
    default: return value
    }
  }
}

@Suite("Arguments as JSON")
struct ArgumentEncodingTests {
  @Test("object keys are sorted, so the same table always gives the same bytes")
  func sortedKeys() throws {
    var texts = Set<String>()
    for _ in 0..<5 {
      let host = RecordingHost()
      let vm = try makeVM(host: host)
      #expect(
        scriptError(
          vm, "require('wb.native').status('X', { delta = 4, alpha = 1, charlie = 3, bravo = 2, [7] = 'seven' })")
          == nil)
      let fields = try #require(host.calls.first?.1.last?.objectValue)
      #expect(fields.keys == ["7", "alpha", "bravo", "charlie", "delta"])
      texts.insert(JSONValue.object(fields).jsonText)
    }
    #expect(texts.count == 1)
  }

  @Test("large nested arguments survive intact")
  func largeArguments() throws {
    let host = RecordingHost()
    let vm = try makeVM(host: host)
    let error = scriptError(
      vm,
      """
      local rows = {}
      for i = 1, 300 do
        rows[i] = { index = i, name = string.rep("n", i % 40), nested = { i, i * 2, { deep = tostring(i) } } }
      end
      require('wb.native').event('big', { rows = rows })
      """)
    #expect(error == nil, "\(String(describing: error))")
    let rows = try #require(host.calls.first?.1.last?["rows"]?.arrayValue)
    #expect(rows.count == 300)
    #expect(rows[299]["index"] == .integer(300))
    #expect(rows[122]["nested"]?.arrayValue?[2]["deep"] == .string("123"))
  }
}
