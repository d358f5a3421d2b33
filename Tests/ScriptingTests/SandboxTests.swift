import JSONCore
import Scripting
import Testing

@Suite("Sandbox")
struct SandboxTests {
  @Test("the allowed libraries are there")
  func allowedLibraries() throws {
    let vm = try makeVM()
    let error = scriptError(
      vm,
      """
      assert(type(string.format) == "function")
      assert(type(table.concat) == "function")
      assert(type(math.floor) == "function")
      assert(type(utf8.char) == "function")
      assert(type(coroutine.wrap) == "function")
      assert(type(os.clock) == "function" and type(os.time) == "function" and type(os.date) == "function")
      assert(type(pcall) == "function" and type(setmetatable) == "function")
      return true
      """)
    #expect(error == nil)
  }

  @Test(
    "removed globals raise an error that says they are not available",
    arguments: ["io.open('x')", "debug.traceback()", "package.loadlib('a', 'b')", "dofile('x')", "loadfile('x')"])
  func removedGlobals(code: String) throws {
    let vm = try makeVM()
    let error = try #require(scriptError(vm, code))
    #expect(error.kind == .runtime)
    #expect(error.message.hasPrefix("test.lua:1:"))
    #expect(error.message.contains("is not available in flows"))
  }

  @Test("only os.clock, os.time and os.date are left", arguments: ["execute", "remove", "exit", "getenv", "rename"])
  func osIsReduced(function: String) throws {
    let vm = try makeVM()
    let error = try #require(scriptError(vm, "os.\(function)('x')"))
    #expect(error.message.contains("os.\(function) is not available in flows"))
  }

  @Test("string.dump is gone and load takes text chunks only")
  func noBinaryChunks() throws {
    let vm = try makeVM()
    #expect(scriptError(vm, "assert(string.dump == nil)") == nil)
    let binary = try #require(scriptError(vm, "load('x = 1', 'chunk', 'b')"))
    #expect(binary.message.contains("only text chunks"))
    let escaped = try #require(scriptError(vm, "assert(load('\\27Lua'))"))
    #expect(escaped.message.contains("attempt to load a binary chunk"))
    #expect(scriptError(vm, "local f = assert(load('return 1 + 1')); assert(f() == 2)") == nil)
    #expect(scriptError(vm, "local f = load('return x', 'c', 't', { x = 5 }); assert(f() == 5)") == nil)
  }

  @Test("collectgarbage cannot stop the collector")
  func collectorStaysOn() throws {
    let vm = try makeVM()
    #expect(scriptError(vm, "collectgarbage(); assert(collectgarbage('count') > 0)") == nil)
    let error = try #require(scriptError(vm, "collectgarbage('stop')"))
    #expect(error.message.contains("collectgarbage(\"stop\") is not allowed"))
  }

  @Test("print goes to the host's log, not to stdout")
  func printIsLogged() throws {
    let host = RecordingHost()
    let vm = try makeVM(host: host)
    #expect(scriptError(vm, "print('hello', 42, nil)") == nil)
    #expect(host.calls.count == 1)
    #expect(host.calls.first?.0 == "log")
    #expect(host.calls.first?.1 == [.string("info"), .string("hello\t42\tnil")])
  }

  @Test("syntax errors name the chunk and line")
  func syntaxError() throws {
    let vm = try makeVM()
    let error = try #require(scriptError(vm, "local x = 1\nlocal y = = 2", chunk: "flows/bad.lua"))
    #expect(error.kind == .syntax)
    #expect(error.message.hasPrefix("flows/bad.lua:2:"))
    #expect(error.file == "flows/bad.lua")
    #expect(error.line == 2)
  }

  @Test("runtime errors carry file:line and a traceback without C frames")
  func runtimeError() throws {
    let vm = try makeVM()
    let error = try #require(
      scriptError(vm, "local function inner()\n  error('broken')\nend\nlocal function outer() inner() end\nouter()"))
    #expect(error.kind == .runtime)
    #expect(error.message == "test.lua:2: broken")
    #expect(error.line == 2)
    #expect(!error.traceback.isEmpty)
    #expect(error.traceback.allSatisfy { !$0.hasPrefix("[C]") })
    #expect(error.traceback.contains { $0.contains("test.lua:4") })
  }

  @Test("error objects that are not strings are described")
  func tableErrors() throws {
    let vm = try makeVM()
    let plain = try #require(scriptError(vm, "local x = 1\nerror({ code = 3 })"))
    // Named where it was raised, as error("...") is.
    #expect(plain.message.hasPrefix("test.lua:2: error raised with a table value"), "\(plain.message)")
    #expect(plain.line == 2)
    let withMessage = try #require(scriptError(vm, "error({ message = 'card lost', code = 3 })"))
    #expect(withMessage.message == "test.lua:1: card lost")
    let described = try #require(
      scriptError(vm, "error(setmetatable({}, { __tostring = function() return 'custom' end }))"))
    #expect(described.message == "custom")
  }
}

@Suite("Limits")
struct LimitTests {
  @Test("an endless loop is stopped by the instruction budget, at its line")
  func endlessLoop() throws {
    let vm = try makeVM()
    let error = try #require(scriptError(vm, "local n = 0\nwhile true do n = n + 1 end"))
    #expect(error.kind == .instructionLimit)
    #expect(error.message.hasPrefix("test.lua:2:"))
    #expect(error.message.contains("instruction limit exceeded"))
  }

  @Test("pcall cannot swallow the instruction budget")
  func pcallCannotSwallow() throws {
    let vm = try makeVM()
    let error = try #require(
      scriptError(
        vm,
        """
        for i = 1, 1000 do
          pcall(function() while true do end end)
        end
        return true
        """))
    #expect(error.kind == .instructionLimit)
  }

  @Test("a loop inside a coroutine is stopped too")
  func coroutineLoop() throws {
    let vm = try makeVM()
    let error = try #require(
      scriptError(vm, "local co = coroutine.wrap(function() while true do end end)\nco()"))
    #expect(error.kind == .instructionLimit)
  }

  @Test("the budget is per call: many small calls are fine")
  func budgetPerCall() throws {
    let vm = try makeVM(limits: ScriptLimits(memoryLimit: 16 << 20, instructionLimit: 100_000))
    for _ in 0..<50 {
      #expect(scriptError(vm, "local s = 0 for i = 1, 10000 do s = s + i end") == nil)
    }
  }

  @Test("a memory bomb hits the cap and names its line")
  func memoryBomb() throws {
    let vm = try makeVM(limits: ScriptLimits(memoryLimit: 4 << 20, instructionLimit: 100_000_000))
    let error = try #require(
      scriptError(vm, "local t = {}\nwhile true do\n  t[#t + 1] = string.rep('x', 1000) .. #t\nend"))
    #expect(error.kind == .memoryLimit)
    #expect(error.message.contains("memory limit exceeded"))
    #expect(error.line == 3)
    #expect(vm.memoryPeak <= 4 << 20)
  }

  @Test("one huge allocation is refused")
  func hugeString() throws {
    let vm = try makeVM(limits: ScriptLimits(memoryLimit: 4 << 20, instructionLimit: 1_000_000))
    let error = try #require(scriptError(vm, "local s = string.rep('x', 100000000)"))
    #expect(error.kind == .memoryLimit)
  }

  @Test("a memory error caught by pcall still ends the run")
  func memoryCaught() throws {
    let vm = try makeVM(limits: ScriptLimits(memoryLimit: 4 << 20, instructionLimit: 100_000_000))
    let error = try #require(
      scriptError(vm, "pcall(string.rep, 'x', 100000000)\nlocal s = 0\nfor i = 1, 10 do s = s + i end"))
    #expect(error.kind == .memoryLimit)
  }
}

@Suite("String patterns")
struct PatternTests {
  @Test(
    "pathological patterns are refused before they run",
    arguments: [
      "string.rep('a', 100000):find('.-.-.-b')",
      "string.rep('a', 100000):match('(.*)(.*)(.*)b')",
      "for w in string.rep('a', 50000):gmatch('a*a*a*b') do end",
      "string.rep('a', 100000):gsub('.-.-b', '')",
      "string.rep('a', 100000):find('%b()%b()x')",
    ])
  func refused(code: String) throws {
    let vm = try makeVM()
    let error = try #require(scriptError(vm, code))
    #expect(error.kind == .runtime)
    #expect(error.message.hasPrefix("test.lua:1:"))
    #expect(error.message.contains("simplify the pattern or shorten the subject"))
  }

  @Test("ordinary pattern use still works")
  func ordinaryUse() throws {
    let vm = try makeVM()
    let error = scriptError(
      vm,
      """
      assert(("face.yaw"):match("^([^.]+)%.(.+)$") == "face")
      assert(select(2, ("a,b,,c"):gsub(",", ";")) == 3)
      local parts = {}
      for part in ("card.corners.1.x"):gmatch("[^.]+") do parts[#parts + 1] = part end
      assert(#parts == 4)
      assert(("x.-y"):find(".-", 1, true) == 2)
      assert(string.rep("ab", 5000):find("ba", 1, true) == 2)
      assert(("  trim  "):match("^%s*(.-)%s*$") == "trim")
      """)
    #expect(error == nil, "\(String(describing: error))")
  }

  @Test("the budget is a setting: a larger one lets a costlier pattern run")
  func budgetIsConfigurable() throws {
    let code = "assert(string.rep('a', 400):find('a-a-b') == nil)"
    let strict = try makeVM(
      limits: ScriptLimits(memoryLimit: 16 << 20, instructionLimit: 1_000_000, patternBudget: 1e6))
    #expect(scriptError(strict, code) != nil)
    let relaxed = try makeVM(
      limits: ScriptLimits(memoryLimit: 16 << 20, instructionLimit: 1_000_000, patternBudget: 1e10))
    #expect(scriptError(relaxed, code) == nil)
  }
}
