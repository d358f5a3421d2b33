import Estimators
import Imaging
import Measurements
import Testing

/// An estimator that only declares what it provides and needs, and records
/// the order it ran in.
final class FakeEstimator: Estimator {
  let descriptor: EstimatorDescriptor
  let log: RunLog

  final class RunLog { var names: [String] = [] }

  init(_ name: String, provides: [String], needs: [String] = [], log: RunLog = RunLog()) {
    descriptor = EstimatorDescriptor(name: name, summary: name, provides: provides, needs: needs)
    self.log = log
  }

  func prepare(schema: MeasurementSchema) throws(EstimatorError) {}
  func estimate(_ frame: DecodedFrame, into measurements: inout MeasurementFrame) { log.names.append(descriptor.name) }
}

@Suite("Estimator graph")
struct GraphTests {
  let log = FakeEstimator.RunLog()

  func estimators() -> [any Estimator] {
    [
      FakeEstimator("pose", provides: ["face.yaw", "face.pitch"], needs: ["face.landmarks"], log: log),
      FakeEstimator("detector", provides: ["face.box", "face.count"], log: log),
      FakeEstimator("landmarks", provides: ["face.landmarks"], needs: ["face.box"], log: log),
      FakeEstimator("card", provides: ["card"], log: log),
      FakeEstimator("blur", provides: ["quality.blur"], log: log),
    ]
  }

  @Test("what the run reads: the flow's fields and what its estimators need, once each; nil when the flow does not say")
  func reads() throws {
    let graph = try EstimatorGraph(available: estimators(), wanted: ["face.yaw", "face.box"])
    #expect(graph.reads == ["face.yaw", "face.box", "face.landmarks"])
    #expect(try EstimatorGraph(available: estimators(), wanted: nil).reads == nil)
  }

  @Test("only the providers of what the flow reads run, after what they need")
  func resolvesNeeds() throws {
    let graph = try EstimatorGraph(available: estimators(), wanted: ["face.yaw"])
    #expect(graph.ordered.map(\.descriptor.name) == ["detector", "landmarks", "pose"])
  }

  @Test("a group need pulls every provider inside it; a provided group serves its members")
  func groups() throws {
    let graph = try EstimatorGraph(available: estimators(), wanted: ["card.tilt_x", "quality"])
    #expect(graph.ordered.map(\.descriptor.name) == ["card", "blur"])
    let face = try EstimatorGraph(available: estimators(), wanted: ["face"])
    #expect(Set(face.ordered.map(\.descriptor.name)) == ["pose", "detector", "landmarks"])
  }

  @Test("a flow that does not say what it reads runs everything, still in dependency order")
  func everything() throws {
    let graph = try EstimatorGraph(available: estimators(), wanted: nil)
    let names = graph.ordered.map(\.descriptor.name)
    #expect(names.count == 5)
    #expect(names.firstIndex(of: "detector")! < names.firstIndex(of: "landmarks")!)
    #expect(names.firstIndex(of: "landmarks")! < names.firstIndex(of: "pose")!)
  }

  @Test("a need nobody provides is an error naming both")
  func missingProvider() throws {
    let lonely: [any Estimator] = [FakeEstimator("pose", provides: ["face.yaw"], needs: ["face.landmarks"])]
    #expect(throws: EstimatorError.self) { try EstimatorGraph(available: lonely, wanted: ["face.yaw"]) }
    do {
      _ = try EstimatorGraph(available: lonely, wanted: ["face.yaw"])
    } catch {
      #expect(error.estimator == "pose")
      #expect(error.message.contains("face.landmarks"))
    }
  }

  @Test("a cycle is an error that shows it")
  func cycle() throws {
    let cyclic: [any Estimator] = [
      FakeEstimator("a", provides: ["x.a"], needs: ["x.b"]), FakeEstimator("b", provides: ["x.b"], needs: ["x.a"]),
    ]
    do {
      _ = try EstimatorGraph(available: cyclic, wanted: ["x.a"])
      Issue.record("expected a cycle error")
    } catch {
      #expect(error.message.contains("depends on itself"))
      #expect(error.message.contains("→"))
    }
  }

  @Test("measurements no estimator provides are named (they can only come from a trace)")
  func unprovided() {
    #expect(EstimatorGraph.unprovided(["face.yaw", "hand.x", "quality.blur"], available: estimators()) == ["hand.x"])
  }

  @Test("two estimators with one name are refused")
  func duplicateNames() {
    let twice: [any Estimator] = [FakeEstimator("a", provides: ["x"]), FakeEstimator("a", provides: ["y"])]
    #expect(throws: EstimatorError.self) { try EstimatorGraph(available: twice, wanted: nil) }
  }
}
