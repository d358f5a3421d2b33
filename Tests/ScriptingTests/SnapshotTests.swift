import JSONCore
import Scripting
import Testing

@Suite("A restorable state")
struct SnapshotTests {
  private func restorableVM(
    limits: ScriptLimits = ScriptLimits(memoryLimit: 16 << 20, instructionLimit: 1_000_000),
    host: RecordingHost = RecordingHost(), regionBytes: Int = 0
  ) throws -> LuaVM {
    let vm = try LuaVM(limits: limits, host: host, restorable: true, regionBytes: regionBytes)
    vm.addRequireRoot(directory: Repository.plugins, display: "plugins")
    return vm
  }

  @Test("restoring brings back globals, modules and upvalues as they were, however the state changed")
  func restoreUndoesEverything() throws {
    let vm = try restorableVM()
    try vm.runString(
      """
      count = 0
      local hidden = 0
      function bump() hidden = hidden + 1; count = count + 1; return hidden end
      state = { seen = {} }
      require("wb.native").added = nil
      """, chunkName: "setup.lua")
    let loaded = vm.memoryInUse
    #expect(vm.snapshot())
    #expect(vm.snapshotBytes > 0)
    for round in 1...3 {
      try vm.runString(
        """
        assert(count == 0, "count is " .. tostring(count))
        assert(bump() == 1)
        assert(#state.seen == 0)
        assert(require("wb.native").added == nil)
        for i = 1, 20000 do state.seen[i] = string.rep("x", i % 50) .. i end
        require("wb.native").added = true
        newglobal = true
        """, chunkName: "round\(round).lua")
      #expect(vm.memoryInUse > loaded)
      #expect(vm.restore())
      #expect(vm.memoryInUse == loaded)
      #expect(scriptError(vm, "assert(newglobal == nil and count == 0)") == nil)
      #expect(vm.restore())
    }
  }

  @Test("a state restored after it hit its instruction limit runs again")
  func restoreClearsATrip() throws {
    let vm = try restorableVM(limits: ScriptLimits(memoryLimit: 16 << 20, instructionLimit: 100_000))
    try vm.runString("function spin() while true do end end", chunkName: "setup.lua")
    #expect(vm.snapshot())
    let error = try #require(scriptError(vm, "spin()"))
    #expect(error.kind == .instructionLimit)
    #expect(scriptError(vm, "x = 1") != nil)
    #expect(vm.restore())
    #expect(scriptError(vm, "x = 1") == nil)
  }

  @Test("calls reach the host the state is bound to now")
  func rebindMovesTheCalls() throws {
    let first = RecordingHost()
    let vm = try restorableVM(host: first)
    try vm.runString("native = require 'wb.native'", chunkName: "setup.lua")
    #expect(vm.snapshot())
    let second = RecordingHost()
    vm.rebind(host: second)
    #expect(vm.restore())
    try vm.runString("native.status('hello')", chunkName: "call.lua")
    #expect(first.calls.isEmpty)
    #expect(second.calls.map(\.0) == ["status"])
  }

  @Test("memory that outgrew the region cannot be restored, and the state stays usable")
  func outgrownRegion() throws {
    // A region of 16 MiB; lifting the cap (restore puts it back) lets the script go past it.
    let vm = try restorableVM(limits: ScriptLimits(memoryLimit: 1 << 20, instructionLimit: 0), regionBytes: 16 << 20)
    try vm.runString("kept = {}", chunkName: "setup.lua")
    #expect(vm.snapshot())
    vm.updateLimits(ScriptLimits(memoryLimit: 0, instructionLimit: 0))
    try vm.runString(
      "for i = 1, 48 do kept[i] = string.rep(string.char(65 + i % 26), 1 << 20) end", chunkName: "grow.lua")
    #expect(!vm.restore())
    #expect(vm.memoryInUse > 40 << 20)
    #expect(scriptError(vm, "assert(#kept == 48 and #kept[48] == 1 << 20)") == nil)
    // Freed again, every block is back in the region: restoring works.
    try vm.runString("kept = nil; collectgarbage()", chunkName: "free.lua")
    #expect(vm.restore())
    #expect(scriptError(vm, "assert(type(kept) == 'table' and #kept == 0)") == nil)
  }

  @Test("a state that is not restorable says so")
  func notRestorable() throws {
    let vm = try makeVM()
    #expect(!vm.snapshot())
    #expect(!vm.restore())
    let uncapped = try LuaVM(
      limits: ScriptLimits(memoryLimit: 0, instructionLimit: 0), host: RecordingHost(), restorable: true)
    #expect(!uncapped.snapshot())
  }
}
