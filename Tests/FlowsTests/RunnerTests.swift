import Diagnostics
import Flows
import FlowsTesting
import JSONCore
import Measurements
import Testing

@Suite("Flow runner")
struct RunnerTests {
  static let twoTurns = """
    local wb = require "wb"
    return wb.flow { name = "turns", %@ steps = {
      wb.threshold { name = "left", field = "face.yaw", above = 20, hint = "face.turn_left" },
      wb.threshold { name = "right", field = "face.yaw", below = -20, hint = "face.turn_right" },
    } }
    """

  func fixture(_ fields: String = "") throws -> FlowFixture {
    try FlowFixture(RunnerTests.twoTurns.replacingOccurrences(of: "%@", with: fields))
  }

  func leftThenRight() -> FrameScript {
    var script = FrameScript()
    script.add(5) { _ in yaw(0) }
    script.add(5) { _ in yaw(25) }
    script.add(5) { _ in yaw(0) }
    script.add(5) { _ in yaw(-25) }
    return script
  }

  @Test("events come in order: session, steps with hints, result last")
  func eventOrder() throws {
    let record = try run(try fixture(), leftThenRight())
    #expect(record.events.first?.type == "session")
    #expect(record.events.last?.type == "result")
    #expect(record.stepStates == ["left:started", "left:passed", "right:started", "right:passed"])
    #expect(record.events("hint").map { $0["key"]?.stringValue } == ["face.turn_left", "face.turn_right"])
    #expect(record.events("hint").first?["text"] == "Turn your head to the left")
    #expect(record.result?.success == true)
    #expect(record.result?.code == 0)
    let result = try #require(record.events.last)
    #expect(result["steps_passed"] == 2)
    #expect(result["frames"] == 16)
  }

  @Test("the next step starts on the frame after the previous one passed, not the same frame")
  func noDoubleCount() throws {
    var script = FrameScript()
    script.add(3) { _ in yaw(0) }
    script.add(3) { _ in yaw(25) }
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "twice", steps = {
        wb.threshold { name = "a", field = "face.yaw", above = 20 },
        wb.threshold { name = "b", field = "face.yaw", above = 20, crossing = false } } }
      """)
    let record = try run(fixture, script)
    let events = record.events("step").map { "\($0["name"]!.stringValue!):\($0["state"]!.stringValue!)@\($0.frame)" }
    #expect(events == ["a:started@0", "a:passed@3", "b:started@4", "b:passed@4"])
  }

  @Test("delay between steps: the next step starts once the delay is over")
  func delay() throws {
    let record = try run(try fixture("delay = 0.2,"), leftThenRight())
    let rightStart = try #require(record.events("step").first { $0["name"] == "right" && $0["state"] == "started" })
    // left passes at frame 5 (t = 0.1667); the delay ends at 0.3667 → frame 11.
    #expect(rightStart.frame == 11)
  }

  @Test("step timeout fails the step and the flow with the flow's code")
  func stepTimeout() throws {
    var script = FrameScript()
    script.add(200) { _ in yaw(0) }
    let record = try run(try fixture("step_timeout = 2, codes = { step_timeout = 1007 },"), script)
    #expect(record.stepStates == ["left:started", "left:failed"])
    #expect(record.events("step").last?["reason"] == "step_timeout")
    #expect(record.result?.reason == "step_timeout")
    #expect(record.result?.code == 1007)
    #expect(record.result?.message == "Too slow: please try again")
    // 2 s at 30 fps: the first frame past the timeout is frame 61.
    #expect(record.events.last?.frame == 61)
  }

  @Test("the total time limit ends the flow, with its code")
  func timeLimit() throws {
    var script = FrameScript()
    script.add(400) { _ in yaw(0) }
    let record = try run(try fixture("time_limit = 1.5, step_timeout = 0, codes = { time_limit = 4 },"), script)
    #expect(record.result?.reason == "time_limit")
    #expect(record.result?.code == 4)
    #expect(record.events.last?.frame == 46)
  }

  @Test("the input ending first is end_of_input")
  func endOfInput() throws {
    var script = FrameScript()
    script.add(5) { _ in yaw(0) }
    let record = try run(try fixture(), script)
    #expect(record.result?.reason == "end_of_input")
    #expect(record.result?.exitStatus == .failed)
    #expect(record.stepStates.last == "left:failed")
  }

  @Test("an empty input still gives a session and a result")
  func emptyInput() throws {
    let record = try run(try fixture(), FrameScript())
    #expect(record.events.map(\.type) == ["session", "result"])
  }

  @Test("--set overrides the flow's own time_limit, and the source says so")
  func settingsLayers() throws {
    let fixture = try fixture("time_limit = 1.5, step_timeout = 0,")
    let flow = try FlowLoader.load(fixture.options(set: ["flow.time_limit=0.5"]), logger: testLogger)
    #expect(flow.settings.number("flow.time_limit") == 0.5)
    #expect(flow.settings.source(of: "flow.time_limit")?.layer == .commandLine)
    let unset = try FlowLoader.load(fixture.options(), logger: testLogger)
    #expect(unset.settings.number("flow.time_limit") == 1.5)
    #expect(unset.settings.source(of: "flow.time_limit")?.layer == .flow)
  }

  @Test("bad --set values are every one reported with the key and the rule")
  func badSettings() throws {
    do {
      _ = try FlowLoader.load(
        try fixture().options(set: ["flow.time_limt=3", "flow.step_delay=999", "lua.memory_limit=lots"]),
        logger: testLogger)
      Issue.record("expected an error")
    } catch let error as WorkbenchError {
      #expect(error.status == .usage)
      let text = error.description
      #expect(text.contains("flow.time_limt"))
      #expect(text.contains("flow.time_limit"))
      #expect(text.contains("flow.step_delay"))
      #expect(text.contains("60"))
      #expect(text.contains("lua.memory_limit"))
    }
  }
}

@Suite("Random order")
struct RandomOrderTests {
  static let pool = """
    local wb = require "wb"
    return wb.flow { name = "pool", random = { pick = 3 }, steps = {
      wb.threshold { name = "a", field = "x", above = 1 },
      wb.threshold { name = "b", field = "x", above = 1 },
      wb.threshold { name = "c", field = "x", above = 1 },
      wb.threshold { name = "d", field = "x", above = 1 },
      wb.threshold { name = "e", field = "x", above = 1 },
    } }
    """

  func order(seed: Int64?) throws -> (order: [String], seed: Int64) {
    let fixture = try FlowFixture(RandomOrderTests.pool)
    let record = try run(fixture, FrameScript(), options: fixture.options(seed: seed))
    let session = try #require(record.events.first)
    return (session["order"]?.arrayValue?.compactMap(\.stringValue) ?? [], session["seed"]?.integerValue ?? -1)
  }

  @Test("the same seed draws the same steps in the same order, and is reported")
  func sameSeed() throws {
    let first = try order(seed: 12345)
    let second = try order(seed: 12345)
    #expect(first.order == second.order)
    #expect(first.seed == 12345)
    #expect(first.order.count == 3)
    #expect(Set(first.order).count == 3)
    #expect(Set(first.order).isSubset(of: ["a", "b", "c", "d", "e"]))
  }

  @Test("flow.pick above the flow's steps, or above LUNA ID's 5 interactions, is a settings error")
  func pickBeyondTheSteps() throws {
    let three = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "three", steps = {
        wb.threshold { name = "a", field = "x", above = 1 },
        wb.threshold { name = "b", field = "x", above = 1 },
        wb.threshold { name = "c", field = "x", above = 1 },
      } }
      """)
    #expect {
      try FlowLoader.load(three.options(set: ["flow.order=random", "flow.pick=4"]), logger: testLogger)
    } throws: {
      let error = $0 as? WorkbenchError
      return error?.status == .usage
        && error?.description.contains("setting 'flow.pick' = 4: the flow has only 3 steps to draw from") == true
    }
    let pool = try FlowFixture(RandomOrderTests.pool)
    #expect {
      try FlowLoader.load(pool.options(set: ["flow.pick=6"]), logger: testLogger)
    } throws: {
      ($0 as? WorkbenchError)?.status == .usage && "\($0)".contains("flow.pick")
    }
    _ = try FlowLoader.load(pool.options(set: ["flow.pick=5"]), logger: testLogger)
  }

  @Test("different seeds give different orders")
  func differentSeeds() throws {
    var orders = Set<[String]>()
    for seed in 1...12 { orders.insert(try order(seed: Int64(seed)).order) }
    #expect(orders.count > 4)
  }

  @Test("without a seed a fresh one is drawn and reported")
  func freshSeed() throws {
    let drawn = try order(seed: nil)
    #expect(drawn.seed > 0)
    #expect(try order(seed: drawn.seed).order == drawn.order)
  }
}

@Suite("Hints, statuses and results")
struct HintTests {
  @Test("the same hint is shown once; params are substituted; the language is chosen")
  func hints() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "h", steps = { function(m, ctx)
        ctx.hint("count.left", { seconds = 3 })
        ctx:hint("count.left", { seconds = 3 })
        if m.frame == 2 then ctx.hint("count.left", { seconds = 2.04 }) end
        if m.frame == 3 then return true end
      end } }
      """,
      messages: ["en": ["count.left": "{seconds} s left"], "zh-HK": ["count.left": "尚餘 {seconds} 秒"]])
    var script = FrameScript()
    script.add(5) { _ in [:] }
    let english = try run(fixture, script)
    // Shown again only when the params change: 3, then 2 (rounded), then 3 again.
    #expect(english.events("hint").map { $0["text"]?.stringValue } == ["3 s left", "2 s left", "3 s left"])
    #expect(english.events("hint").first?["params"] == .object(JSONObject([("seconds", .integer(3))])))
    let chinese = try run(fixture, script, options: fixture.options(language: "zh-HK"))
    #expect(chinese.events("hint").first?["text"] == "尚餘 3 秒")
    #expect(chinese.events("hint").first?["lang"] == "zh-HK")
  }

  @Test("a key missing in the chosen language falls back, and says which language it used")
  func fallback() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "f", steps = { function(m, ctx) ctx.hint("only.english") return true end } }
      """, messages: ["en": ["only.english": "English only"]])
    var script = FrameScript()
    script.add(1) { _ in [:] }
    let record = try run(fixture, script, options: fixture.options(language: "zh-HK"))
    #expect(record.events("hint").first?["text"] == "English only")
    #expect(record.events("hint").first?["lang"] == "en")
  }

  @Test("on_finish sees the result and can emit a final status")
  func onFinish() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "f", codes = { step_timeout = 1007 },
        steps = { wb.step { name = "never", timeout = 0.1, update = function() end } },
        on_finish = function(self, ctx, result)
          ctx.status(result.success and "DONE" or ("FAILED_" .. result.code), { reason = result.reason })
        end }
      """)
    var script = FrameScript()
    script.add(10) { _ in [:] }
    let record = try run(fixture, script)
    #expect(record.statuses == ["FAILED_1007"])
    #expect(record.events("status").first?["reason"] == "step_timeout")
    #expect(record.events.last?.type == "result")
  }

  @Test("a flow's score function puts the session's score in the result, and on_finish sees it")
  func flowScore() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "scored",
        steps = { wb.step { name = "turn", update = function(self, m, ctx)
          ctx.widest = math.max(rawget(ctx, "widest") or 0, m.face.yaw)
          if m.face.yaw > 20 then return true end
        end } },
        score = function(flow, ctx, result) return ctx.widest / 100 end,
        on_finish = function(flow, ctx, result) ctx.status("SCORED", { score = result.score }) end }
      """)
    var script = FrameScript()
    script.add(3) { index in yaw(Double(index) * 4) }
    script.add(1) { _ in yaw(25) }
    let record = try run(fixture, script)
    #expect(record.result?.success == true, "\(record.events.last.map(String.init(describing:)) ?? "")")
    #expect(record.events.last?["score"] == .number(0.25))
    #expect(record.events("status").first?["score"] == .number(0.25))
  }

  @Test(
    "a score function that gives nil leaves no score; one that gives text fails the run at the line of score")
  func flowScoreNilOrWrong() throws {
    let flow = """
      local wb = require "wb"
      return wb.flow { name = "scored",
        steps = { function(m) return true end },
        score = function() return %@ end }
      """
    var script = FrameScript()
    script.add(2) { _ in yaw(0) }
    let none = try run(try FlowFixture(flow.replacingOccurrences(of: "%@", with: "nil")), script)
    #expect(none.result?.success == true)
    #expect(none.events.last?["score"] == nil)
    let text = try run(try FlowFixture(flow.replacingOccurrences(of: "%@", with: "\"high\"")), script)
    #expect(text.result?.reason == "script_error")
    let error = text.result?.error ?? ""
    #expect(error.contains("flow.lua:4: wb.flow: the function in field 'score' returned a string"), "\(error)")
    let infinite = try run(try FlowFixture(flow.replacingOccurrences(of: "%@", with: "math.huge")), script)
    #expect(infinite.result?.error?.contains("'score' returned inf") == true)
  }

  @Test("custom events are typed flow.<name>")
  func customEvent() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "e", steps = { function(m, ctx) ctx.event("best_shot", { score = 0.9 }) return true end } }
      """)
    var script = FrameScript()
    script.add(1) { _ in [:] }
    let record = try run(fixture, script)
    #expect(record.events("flow.best_shot").first?["score"] == .number(0.9))
  }
}

@Suite("Check")
struct CheckTests {
  @Test("check finds message keys missing from a catalog, including keys only in the source")
  func missingKeys() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "k", steps = {
        wb.threshold { field = "face.yaw", above = 20, hint = "face.turn_left" },
        function(m, ctx) ctx.hint("custom.key") end,
      } }
      """, messages: ["en": ["custom.key": "Custom"]])
    let report = try FlowChecker.check(fixture.options(), strict: true, logger: testLogger)
    let messages = report.problems.map(\.message)
    #expect(messages.contains { $0.hasPrefix("message key 'custom.key' is missing from the 'zh-HK' catalog") })
    #expect(!messages.contains { $0.contains("face.turn_left") })
  }

  @Test("check lists every API mistake, each at its line")
  func apiMistakes() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "m", time_limt = 3, steps = {
        wb.threshold { field = "face.yaw" },
        wb.range { field = "face.yaw", min = 5, max = 1, hold = 3 },
      } }
      """)
    let report = try FlowChecker.check(fixture.options(), logger: testLogger)
    let lines = report.problems.map(\.message)
    #expect(lines.contains { $0.contains("flow.lua:3:") && $0.contains("exactly one of above") })
    #expect(lines.contains { $0.contains("flow.lua:4:") && $0.contains("min (5) is above max (1)") })
    #expect(lines.contains { $0.contains("flow.lua:4:") && $0.contains("unknown field 'hold'") })
    #expect(lines.contains { $0.contains("unknown field 'time_limt'") })
  }

  @Test("a clean flow has no problems")
  func clean() throws {
    let fixture = try FlowFixture(RunnerTests.twoTurns.replacingOccurrences(of: "%@", with: ""))
    let report = try FlowChecker.check(fixture.options(), logger: testLogger)
    #expect(report.problems.isEmpty, "\(report.problems)")
    #expect(report.summary.contains("2 steps"))
  }

  @Test("a frame with more measurements than the slot buffer first holds reaches the flow whole")
  func manyMeasurements() throws {
    // 300 fields: the buffer grows on the first frame, which must still be read from the new one.
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "wide", steps = {
        wb.step { name = "all there", needs = { "probe" }, update = function(self, m)
          for i = 1, 300 do
            if m.probe["v" .. i] ~= i then return false, "missing_v" .. i end
          end
          return true
        end },
      } }
      """)
    var script = FrameScript()
    script.add(1) { _ in
      Dictionary(uniqueKeysWithValues: (1...300).map { ("probe.v\($0)", MeasurementValue.integer(Int64($0))) })
    }
    let record = try run(fixture, script)
    #expect(record.result?.reason == "passed", "\(String(describing: record.result))")
  }

  @Test("check warns, at its line, of each step that does not say what it reads; the run still works")
  func undeclaredNeeds() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      return wb.flow { name = "needs", steps = {
        wb.threshold { field = "face.yaw", above = 20 },
        wb.step { name = "custom", update = function(self, m) return true end },
        wb.step("plain", function(m) return true end),
        wb.step { name = "declared", needs = { "face.pitch" }, update = function(self, m) return true end },
      } }
      """)
    let report = try FlowChecker.check(fixture.options(), logger: testLogger)
    #expect(report.problems.isEmpty, "\(report.problems)")
    #expect(report.warnings.map(\.location?.line) == [4, 5])
    #expect(report.warnings.allSatisfy { $0.location?.file.hasSuffix("flow.lua") == true })
    #expect(report.warnings.first?.message.contains("step 'custom' does not say what it reads") == true)
  }

  @Test("flow-declared settings are checked against --set")
  func declaredSettings() throws {
    let fixture = try FlowFixture(
      """
      local wb = require "wb"
      local S = wb.settings { ["turn.angle"] = { type = "number", default = 20, min = 5, max = 60, unit = "deg",
                                                   doc = "how far to turn" } }
      return wb.flow { name = "s", steps = { wb.threshold { field = "face.yaw", above = S.turn.angle } } }
      """)
    let ok = try FlowLoader.load(fixture.options(set: ["turn.angle=30"]), logger: testLogger)
    #expect(ok.settings.number("turn.angle") == 30)
    let report = try FlowChecker.check(fixture.options(set: ["turn.angle=90"]), logger: testLogger)
    #expect(report.problems.contains { $0.message.contains("turn.angle") && $0.message.contains("60") })
  }
}
