import Estimators
import Testing

@Suite("What the flow reads now")
struct MeasurementDemandTests {
  @Test("a step asks for the fields it names, not those of a group it reads")
  func asks() {
    let demand = MeasurementDemand()
    demand.update(step: 0, reads: ["face.count", "face"])
    #expect(!demand.asks(for: "face.liveness"))
    demand.update(step: 1, reads: ["face.count", "face.liveness"])
    #expect(demand.asks(for: "face.liveness"))
    demand.update(step: 2, reads: nil)
    #expect(demand.asks(for: "face.liveness"), "a step that does not say may read anything")
    demand.update(step: nil, reads: ["face.liveness"])
    #expect(!demand.asks(for: "face.liveness"), "after the flow nothing is read")
  }

  @Test("the same step again changes nothing; after forget it is read anew")
  func versions() {
    let demand = MeasurementDemand()
    var calls = 0
    demand.update(
      step: 3,
      reads: {
        calls += 1; return ["a"]
      }())
    demand.update(
      step: 3,
      reads: {
        calls += 1; return ["b"]
      }())
    #expect(calls == 1 && demand.reads == ["a"] && demand.version == 1)
    demand.forget()
    demand.update(step: 3, reads: ["b"])
    #expect(demand.reads == ["b"] && demand.version == 2)
  }

  @Test("a schedule: every n-th frame, or the frames asked for")
  func schedule() {
    let demand = MeasurementDemand()
    var everyThird = DemandSchedule(every: 3, field: "face.liveness")
    #expect((0..<7).map { _ in everyThird.isDue(demand) } == [true, false, false, true, false, false, true])
    var asked = DemandSchedule(every: 0, field: "face.liveness")
    demand.update(step: 0, reads: ["face.yaw"])
    let notAsked = asked.isDue(demand)
    demand.update(step: 1, reads: ["face.liveness"])
    let nowAsked = [asked.isDue(demand), asked.isDue(demand)]
    #expect(!notAsked && nowAsked == [true, true])
    var alone = DemandSchedule(every: 0, field: "face.liveness")
    let withoutFlow = alone.isDue(nil)
    #expect(withoutFlow, "without a flow to ask, every frame")
  }
}
