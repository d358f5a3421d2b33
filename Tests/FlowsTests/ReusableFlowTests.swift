import Flows
import FlowsTesting
import Measurements
import Reporting
import Testing

@Suite("A flow loaded once for many sessions")
struct ReusableFlowTests {
  /// Passes only in a session that starts from the flow as loaded: the
  /// file's local, a global and the step library's module each count the
  /// sessions that reached the step.
  static let counting = """
    local wb = require "wb"
    local sessions = 0
    return wb.flow {
      name = "counting",
      steps = { wb.step { name = "first", needs = { "face.yaw" }, timeout = 5,
        update = function(self, m, ctx)
          if not rawget(ctx, "counted") then
            ctx.counted = true
            sessions = sessions + 1
            leaked = (leaked or 0) + 1
            rawset(wb, "leaked", (rawget(wb, "leaked") or 0) + 1)
          end
          if sessions == 1 and leaked == 1 and rawget(wb, "leaked") == 1 then return true end
          return false
        end } },
    }
    """

  @Test("every session passes from one load, which a session's changes never reach")
  func sessionsStartFromTheLoad() throws {
    let fixture = try FlowFixture(Self.counting)
    let reusable = try #require(ReusableFlow(fixture.options(), logger: testLogger))
    for _ in 0..<4 {
      let flow = try #require(reusable.next())
      let sink = InMemoryEventSink()
      let schema = MeasurementSchema()
      let runner = FlowRunner(flow: flow, sink: sink, schema: schema)
      var script = FrameScript()
      script.add(3) { _ in yaw(0) }
      for frame in script.build(into: schema) where !runner.process(frame) { break }
      runner.finishAtEndOfInput()
      #expect(runner.result?.success == true, "\(sink.events.filter { $0.type == "result" })")
    }
    #expect(reusable.loads == 1)
    #expect(reusable.reuses == 4)
  }

  @Test("a flow that does not load is not kept: each session loads it and reports why")
  func aBrokenFlowIsNotKept() throws {
    let fixture = try FlowFixture("return wb.flow {")
    #expect(ReusableFlow(fixture.options(), logger: testLogger) == nil)
  }
}
