import Flows
import FlowsTesting
import Measurements
import Testing

@Suite("Watchers: wb.alert and wb.guard")
struct WatcherTests {
  private let flowWithAlerts = """
    local wb = require "wb"
    return wb.flow { name = "w",
      steps = { wb.threshold { name = "turn", field = "face.yaw", above = 20, hint = "face.turn_left", timeout = 60 } },
      watch = {
        wb.alert { status = "FAR", field = "face.size", below = 100, hint = "face.look_straight" },
        wb.alert { status = "DARK", field = "quality.darkness", below = 0.5, hint = "face.blink", clear_status = "LIT" },
      },
    }
    """

  @Test("an alert raises its status and hint, and clears to VALID and the hint from before")
  func alertRaisesAndClears() throws {
    let fixture = try FlowFixture(flowWithAlerts)
    var script = FrameScript()
    script.add(3) { _ in ["face.size": .number(200), "face.yaw": .number(0)] }
    script.add(3) { _ in ["face.size": .number(50), "face.yaw": .number(0)] }
    script.add(3) { _ in ["face.size": .number(200), "face.yaw": .number(0)] }
    script.add(1) { _ in ["face.size": .number(200), "face.yaw": .number(30)] }
    let record = try run(fixture, script)
    #expect(record.result?.success == true)
    #expect(record.statuses == ["FAR", "VALID"])
    let hints = record.events("hint").map { "\($0.frame):\($0["key"]?.stringValue ?? "")" }
    #expect(hints == ["0:face.turn_left", "3:face.look_straight", "6:face.turn_left"], "\(hints)")
  }

  @Test("two alerts at once: the hint of the one still raised stays until both clear")
  func overlappingAlerts() throws {
    let fixture = try FlowFixture(flowWithAlerts)
    var script = FrameScript()
    script.add(2) { _ in ["face.size": .number(50), "quality.darkness": .number(0.9)] }
    script.add(2) { _ in ["face.size": .number(50), "quality.darkness": .number(0.1)] }
    script.add(2) { _ in ["face.size": .number(200), "quality.darkness": .number(0.1)] }
    script.add(2) { _ in ["face.size": .number(200), "quality.darkness": .number(0.9)] }
    let record = try run(fixture, script)
    #expect(record.statuses == ["FAR", "DARK", "VALID", "LIT"], "\(record.statuses)")
    let hints = record.events("hint").map { "\($0.frame):\($0["key"]?.stringValue ?? "")" }
    #expect(
      hints == ["0:face.turn_left", "0:face.look_straight", "2:face.blink", "6:face.turn_left"], "\(hints)")
  }

  @Test("an alert raised only after for_ms")
  func alertWaitsForItsTime() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "w", steps = { wb.step(function() end) },
        watch = { wb.alert { status = "FAST", field = "card.speed", above = 100, for_ms = 100 } } }
      """)
    var script = FrameScript()
    script.add(2) { _ in ["card.speed": .number(300)] }  // 33 ms: too short
    script.add(2) { _ in ["card.speed": .number(10)] }
    script.add(5) { _ in ["card.speed": .number(300)] }  // raised at the 4th frame (100 ms)
    let record = try run(fixture, script)
    let fast = try #require(record.events("status").first)
    #expect(fast["status"] == "FAST")
    #expect(fast.frame == 7)
  }

  @Test("a guard ends the flow with its reason and code once it has held for for_ms")
  func guardEndsTheFlow() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "g", codes = { lost = 3 },
        steps = { wb.threshold { field = "face.yaw", above = 20, timeout = 60 } },
        watch = { wb.guard { reason = "lost", code = 3, for_ms = 200,
                             when = function(m) return not (m.card and m.card.found) end,
                             needs = { "card.found" } } } }
      """)
    var script = FrameScript()
    script.add(3) { _ in ["card.found": .bool(true), "face.yaw": .number(0)] }
    script.add(3) { _ in ["card.found": .bool(false)] }  // 100 ms
    script.add(1) { _ in ["card.found": .bool(true)] }
    script.add(10) { _ in ["card.found": .bool(false)] }
    let record = try run(fixture, script)
    #expect(record.result?.success == false)
    #expect(record.result?.reason == "lost")
    #expect(record.result?.code == 3)
    #expect(record.events("result").first?.frame == 13)
    #expect(record.runner.flow.declaredNeeds.contains("card.found"))
  }

  @Test("what the flow reads beside its steps' needs: tested fields and watchers' needs; unknown with a bare `when`")
  func readsBesideNeeds() throws {
    let said = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "r",
        steps = { wb.threshold { field = "face.yaw", above = 20, needs = { "face.count" } } },
        watch = { wb.alert { status = "FAR", field = "card.size_ratio", below = 0.3 } } }
      """)
    let reads = try #require(try run(said, FrameScript()).runner.flow.readsBesideNeeds)
    #expect(reads.contains("face.yaw"), "\(reads)")
    #expect(reads.contains("card.size_ratio"), "\(reads)")
    let bare = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "r",
        steps = { wb.threshold { field = "face.yaw", above = 20 } },
        watch = { wb.alert { status = "BLINK", when = function(m) return (m.face.blink_left or 0) > 0.5 end } } }
      """)
    #expect(try run(bare, FrameScript()).runner.flow.readsBesideNeeds == nil)
  }

  @Test("a step's passed callback runs once, on the frame it passes")
  func passedCallback() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "p", steps = {
        wb.threshold { field = "face.yaw", above = 20,
          passed = function(self, m, ctx) ctx.status("TURNED", { yaw = m.face.yaw }) end },
        wb.step(function() end),
      } }
      """)
    var script = FrameScript()
    script.add(2) { _ in yaw(0) }
    script.add(3) { _ in yaw(30) }
    let record = try run(fixture, script)
    let turned = record.events("status")
    #expect(turned.count == 1)
    #expect(turned.first?.frame == 2)
    #expect(turned.first?["yaw"]?.doubleValue == 30)
  }

  @Test("intermediate results and captures are events; the result lists the captures")
  func intermediateAndCapture() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "i", steps = {
        wb.threshold { field = "face.yaw", above = 20, passed = function(self, m, ctx)
          local images = ctx.capture("first")
          ctx.intermediate("first", 1, { images = images, yaw = m.face.yaw })
        end } } }
      """, messages: ["en": ["result.first": "First motion"]])
    var script = FrameScript()
    script.add(1) { _ in yaw(0) }
    script.add(1) { _ in yaw(30) }
    let record = try run(fixture, script)
    let capture = try #require(record.events("capture").first)
    #expect(capture["name"] == "first")
    #expect(capture["images"] == .null)
    let intermediate = try #require(record.events("intermediate").first)
    #expect(intermediate["code"] == 1)
    #expect(intermediate["reason"] == "first")
    #expect(intermediate["message"] == "First motion")
    #expect(intermediate["yaw"]?.doubleValue == 30)
    let result = try #require(record.events("result").first)
    #expect(result["captures"]?["first"]?["frame"] == 1)
  }

  @Test("mistakes in watchers are reported")
  func watcherMistakes() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "m", steps = { wb.step(function() end) }, watch = {
        wb.alert { field = "face.size" },
        wb.guard { reason = "lost", code = -1, when = function() return false end },
        "nope",
      } }
      """)
    #expect(throws: (any Error).self) { try FlowLoader.load(fixture.options(), logger: testLogger) }
    do {
      _ = try FlowLoader.load(fixture.options(), logger: testLogger)
    } catch {
      let text = error.diagnostics.map(\.message).joined(separator: "\n")
      #expect(text.contains("wb.alert: an alert needs status = \"NAME\""), "\(text)")
      #expect(text.contains("wb.alert: with field, give exactly one of above = value or below = value"), "\(text)")
      #expect(text.contains("wb.guard: code must be a whole number of at least 0"), "\(text)")
      #expect(text.contains("wb.flow: watch[3] is not a watcher"), "\(text)")
    }
  }
}
