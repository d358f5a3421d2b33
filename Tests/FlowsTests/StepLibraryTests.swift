import Flows
import FlowsTesting
import Measurements
import Testing

@Suite("Step library")
struct StepLibraryTests {
  @Test("threshold passes on a crossing, not on a value that was already beyond")
  func thresholdCrossing() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "t", steps = { wb.threshold { name = "left", field = "face.yaw", above = 20 } } }
      """)
    var script = FrameScript()
    script.add(10) { _ in yaw(30) }  // already turned: must not count
    script.add(5) { _ in yaw(0) }
    script.add(5) { _ in yaw(25) }
    let record = try run(fixture, script)
    #expect(record.result?.success == true)
    let passed = try #require(record.events("step").first { $0["state"] == "passed" })
    #expect(passed.frame == 15)
  }

  @Test("threshold with crossing = false passes on any frame beyond")
  func thresholdLevel() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "t", steps = { wb.threshold { field = "face.yaw", above = 20, crossing = false } } }
      """)
    var script = FrameScript()
    script.add(3) { _ in yaw(30) }
    let record = try run(fixture, script)
    #expect(record.result?.success == true)
    #expect(record.events("step").last?.frame == 0)
  }

  @Test("threshold below, on a value function")
  func thresholdBelowValue() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      local function eyes(m) return m.face and math.min(m.face.ear_left, m.face.ear_right) end
      return wb.flow { name = "t", steps = {
        wb.threshold { value = eyes, needs = { "face.ear_left", "face.ear_right" }, below = 0.15 } } }
      """)
    var script = FrameScript()
    script.add(4) { _ in ["face.ear_left": .number(0.3), "face.ear_right": .number(0.31)] }
    script.add(2) { _ in ["face.ear_left": .number(0.3), "face.ear_right": .number(0.1)] }
    let record = try run(fixture, script)
    #expect(record.result?.success == true)
    #expect(record.events("step").last?.frame == 4)
  }

  @Test("range needs the value held inside for hold_ms without leaving")
  func rangeHold() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "r", steps = { wb.range { field = "face.yaw", min = -5, max = 5, hold_ms = 300 } } }
      """)
    var script = FrameScript(fps: 10)
    script.add(2) { _ in yaw(0) }  // 0.0, 0.1: inside for 0.1 s
    script.add(1) { _ in yaw(9) }  // 0.2: leaves, the hold restarts
    script.add(5) { _ in yaw(1) }  // 0.3 ... 0.7: passes at 0.6
    let record = try run(fixture, script)
    #expect(record.result?.success == true)
    let passed = try #require(record.events("step").first { $0["state"] == "passed" })
    #expect(passed.frame == 6)
  }

  @Test("a missing measurement counts as leaving the range")
  func rangeMissing() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "r", steps = { wb.range { field = "face.yaw", min = -5, max = 5, hold_ms = 200, timeout = 1 } } }
      """)
    var script = FrameScript(fps: 10)
    script.add(20) { i in i % 2 == 0 ? yaw(0) : [:] }
    let record = try run(fixture, script)
    #expect(record.result?.reason == "step_timeout")
  }

  @Test("sequence: a blink passes when the eyes reopen in time, and resets when too slow")
  func sequenceBlink() throws {
    let source = """
      local wb = require "wb"
      return wb.flow { name = "blink", steps = {
        wb.sequence { name = "blink",
          wb.threshold { field = "face.ear", below = 0.15 },
          wb.threshold { field = "face.ear", above = 0.25, within_ms = 400 } } } }
      """
    func ear(_ value: Double) -> [String: MeasurementValue] { ["face.ear": .number(value)] }
    var fast = FrameScript()
    fast.add(10) { _ in ear(0.3) }
    fast.add(6) { _ in ear(0.05) }  // 0.2 s closed
    fast.add(5) { _ in ear(0.3) }
    let passed = try run(try FlowFixture(source), fast)
    #expect(passed.result?.success == true)
    #expect(passed.events("step").last?.frame == 16)

    var slow = FrameScript()
    slow.add(10) { _ in ear(0.3) }
    slow.add(30) { _ in ear(0.05) }  // 1 s closed: too slow, resets
    slow.add(200) { _ in ear(0.3) }  // reopening alone is not a blink
    let failed = try run(try FlowFixture(source), slow)
    #expect(failed.result?.success == false)
    #expect(failed.result?.reason == "step_timeout")
  }

  @Test("a plain function step and wb.step with a name")
  func plainFunctions() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "plain", steps = {
        function(m, ctx) if m.face and m.face.count == 1 then return true end end,
        wb.step("second", function(m, ctx) if m.frame >= 5 then return false, "too_late", 7 end end),
      } }
      """)
    var script = FrameScript()
    script.add(10) { i in ["face.count": .integer(i >= 2 ? 1 : 0)] }
    let record = try run(fixture, script)
    #expect(record.stepStates == ["step 1:started", "step 1:passed", "second:started", "second:failed"])
    #expect(record.result?.reason == "too_late")
    #expect(record.result?.code == 7)
    #expect(record.result?.exitStatus == .failed)
  }

  @Test("m is refilled every frame: a table that disappears is nil")
  func absentTables() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      local seen = {}
      return wb.flow { name = "m", steps = { function(m, ctx)
        seen[#seen + 1] = m.face == nil and "none" or tostring(m.face.yaw)
        if m.frame == 3 then ctx.status(table.concat(seen, ",")) return true end
      end } }
      """)
    var script = FrameScript()
    script.frames = [yaw(1), [:], yaw(3), ["card.found": .bool(true)]]
    let record = try run(fixture, script)
    #expect(record.statuses == ["1.0,none,3.0,none"])
  }

  @Test("a step returning something else than true/false/nil is a script error")
  func badReturn() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "bad", steps = { function() return "yes" end } }
      """)
    var script = FrameScript()
    script.add(2) { _ in [:] }
    let record = try run(fixture, script)
    #expect(record.result?.reason == "script_error")
    #expect(record.result?.exitStatus == .usage)
    #expect(record.result?.error?.contains("returned a string") == true)
  }
}

@Suite("Sequence hand-over")
struct SequenceHandOverTests {
  static let blink = """
    local wb = require "wb"
    return wb.flow { name = "blink", steps = {
      wb.sequence { name = "blink",
        wb.threshold { field = "face.ear", below = 0.15, hint = "face.blink" },
        wb.threshold { field = "face.ear", above = 0.25, within_ms = 400, hint = "face.look_straight" } } } }
    """

  @Test("a blink that closes the eyes for a single frame is seen")
  func singleFrameBlink() throws {
    var script = FrameScript()
    script.add(10) { _ in ["face.ear": .number(0.3)] }
    script.add(1) { _ in ["face.ear": .number(0.05)] }
    script.add(5) { _ in ["face.ear": .number(0.3)] }
    let record = try run(try FlowFixture(SequenceHandOverTests.blink), script)
    #expect(record.result?.success == true)
    #expect(record.events("step").last?.frame == 11)
  }

  @Test("each sub-step's hint is shown when that sub-step starts")
  func subStepHints() throws {
    var script = FrameScript()
    script.add(5) { _ in ["face.ear": .number(0.3)] }
    script.add(3) { _ in ["face.ear": .number(0.05)] }
    script.add(3) { _ in ["face.ear": .number(0.3)] }
    let record = try run(try FlowFixture(SequenceHandOverTests.blink), script)
    #expect(record.events("hint").map { $0["key"]?.stringValue } == ["face.blink", "face.look_straight"])
    #expect(record.events("hint").last?.frame == 5)
  }
}

@Suite("Deadlines")
struct DeadlineTests {
  @Test("a frame captured after the step's timeout does not pass the step")
  func lateFrame() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "late", steps = { wb.threshold { field = "face.yaw", above = 20, timeout = 1 } } }
      """)
    var script = FrameScript(fps: 10)
    script.add(11) { _ in yaw(0) }  // 0.0 ... 1.0
    script.add(1) { _ in yaw(30) }  // 1.1: too late
    let record = try run(fixture, script)
    #expect(record.result?.reason == "step_timeout")
    #expect(record.events.last?.frame == 11)
  }

  @Test("a frame exactly at the timeout still counts")
  func onTime() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "late", steps = { wb.threshold { field = "face.yaw", above = 20, timeout = 1 } } }
      """)
    var script = FrameScript(fps: 10)
    script.add(10) { _ in yaw(0) }
    script.add(1) { _ in yaw(30) }  // t = 1.0
    let record = try run(fixture, script)
    #expect(record.result?.success == true)
  }
}

@Suite("Hint order")
struct HintOrderTests {
  @Test("a sequence shows its own hint, then its first sub-step's, which stays")
  func sequenceThenSubStep() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "h", steps = {
        wb.sequence { name = "blink", hint = "face.look_straight",
          wb.threshold { field = "face.ear", below = 0.15, hint = "face.blink" },
          wb.threshold { field = "face.ear", above = 0.25 } } } }
      """)
    var script = FrameScript()
    script.add(2) { _ in ["face.ear": .number(0.3)] }
    let record = try run(fixture, script)
    #expect(record.events("hint").map { $0["key"]?.stringValue } == ["face.look_straight", "face.blink"])
  }
}
