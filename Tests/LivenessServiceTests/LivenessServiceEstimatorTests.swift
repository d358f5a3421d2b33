import Estimators
import Foundation
import HTTPTestSupport
import Imaging
import LivenessService
import Measurements
import Settings
import TestSupport
import Testing

/// `pad.*` settings as a run resolves them, from `key=value` texts.
func serviceSettings(_ assignments: [String]) throws -> ResolvedSettings {
  let declarations =
    LivenessServiceEstimator.settingDeclarations + [
      .strings("pad.model", default: [], doc: "the model"),
      .integer("pad.every", default: 0, minimum: 0, maximum: 10_000, unit: "frames", doc: "every"),
    ]
  var builder = try SettingsBuilder(declarations: declarations)
  for text in assignments {
    let (key, value) = try SettingsBuilder.parseAssignment(text)
    builder.assign(key, text: value, source: .commandLine)
  }
  let (settings, problems) = builder.resolve()
  #expect(problems.isEmpty, "\(problems)")
  return settings
}

/// The estimator on one schema, fed frames of a grey image with a face
/// count the test chooses (the face estimator's part).
final class ServiceBench {
  let estimator: LivenessServiceEstimator
  let demand = MeasurementDemand()
  let schema = MeasurementSchema()
  let frame = DecodedFrame()
  let count: Int
  let liveness: Int
  let quality: Int
  let error: Int
  private var index: Int64 = 0

  init(_ assignments: [String], live: Bool = false) throws {
    estimator = LivenessServiceEstimator(settings: try serviceSettings(assignments))
    count = try schema.valueNode("face.count", estimator: "test")
    try estimator.prepare(schema: schema)
    liveness = try schema.valueNode("face.liveness", estimator: "test")
    quality = try schema.valueNode("face.liveness_quality", estimator: "test")
    error = try schema.valueNode("face.liveness_error", estimator: "test")
    demand.live = live
    estimator.attach(demand)
    frame.color.reshape(width: 64, height: 48, format: .rgb8)
    frame.color.pixels.update(repeating: 128, count: frame.color.byteCount)
    frame.hasColor = true
  }

  /// One frame with `faces` faces, measured.
  func next(faces: Int64 = 1) -> MeasurementFrame {
    index += 1
    frame.index = index
    var measurements = MeasurementFrame(t: Double(index) / 30, index: index)
    measurements[count] = .integer(faces)
    estimator.estimate(frame, into: &measurements)
    return measurements
  }
}

@Suite("face.liveness.http", .serialized)
struct LivenessServiceEstimatorTests {
  @Test("a recording: the frame after the one posted waits for the answer and has it")
  func recording() async throws {
    let script = LivenessServiceDouble([.slow(0.2, LivenessServiceDouble.live(0.83, quality: 0.6))])
    let frames = try await withLoopbackServer(respond: script.respond) { port in
      try await offThePool {
        let bench = try ServiceBench(["pad.url=http://127.0.0.1:\(port)/6/liveness"])
        return (0..<3).map { _ in bench.next() }.map { ($0[bench.liveness], $0[bench.quality]) }
      }
    }
    #expect(frames[0].0 == .absent)
    #expect(frames[1].0 == .number(0.83) && frames[1].1 == .number(0.6))
    // Frame 2 took the answer and posted again, so frame 3 waited for the next one.
    #expect(frames[2].0 == .number(0.83))
    #expect(script.requests >= 2)
  }

  @Test("a camera: the frame loop goes on while the answer comes")
  func camera() async throws {
    let script = LivenessServiceDouble([.slow(0.5, LivenessServiceDouble.live(0.4))])
    let (early, late, most) = try await withLoopbackServer(respond: script.respond) { port in
      try await offThePool {
        let bench = try ServiceBench(["pad.url=http://127.0.0.1:\(port)/6/liveness"], live: true)
        let early = (0..<5).map { _ in bench.next()[bench.liveness] }
        var late: MeasurementValue = .absent
        var most = 0
        for _ in 0..<300 where late == .absent {
          usleep(20_000)
          most = max(most, script.requests)
          late = bench.next()[bench.liveness]
        }
        return (early, late, most)
      }
    }
    #expect(early.allSatisfy { $0 == .absent }, "no frame waited for the service: \(early)")
    #expect(late == .number(0.4))
    #expect(most == 1, "one request on its way at most, while the answer came")
  }

  @Test("a new run on the same estimator never gets the last run's answer")
  func restart() async throws {
    let script = LivenessServiceDouble([.slow(0.3, LivenessServiceDouble.live(0.6))])
    let frames = try await withLoopbackServer(respond: script.respond) { port in
      try await offThePool {
        let bench = try ServiceBench(["pad.url=http://127.0.0.1:\(port)/6/liveness"])
        _ = bench.next()
        bench.demand.forget()
        bench.demand.update(step: 0, reads: ["face.liveness"])
        return [bench.next()[bench.liveness], bench.next()[bench.liveness]]
      }
    }
    #expect(frames == [.absent, .number(0.6)], "the first frame of the new run dropped the old answer")
  }

  @Test("only the frames whose step reads face.liveness are posted, and only with a face")
  func onlyWhenAsked() async throws {
    let script = LivenessServiceDouble([.answer(LivenessServiceDouble.live(0.9))])
    try await withLoopbackServer(respond: script.respond) { port in
      try await offThePool {
        let bench = try ServiceBench(["pad.url=http://127.0.0.1:\(port)/6/liveness"])
        bench.demand.update(step: 0, reads: ["face.count", "face.yaw"])
        for _ in 0..<4 { #expect(bench.next()[bench.liveness] == .absent) }
        #expect(script.requests == 0)
        bench.demand.update(step: 1, reads: ["face.count", "face.liveness"])
        _ = bench.next(faces: 0)
        // Had the frame without a face been posted, this frame would wait for its answer.
        #expect(bench.next()[bench.liveness] == .absent, "a frame without a face is never posted")
        #expect(bench.next()[bench.liveness] == .number(0.9))
        // A step that reads the group "face" does not ask: it must name face.liveness.
        bench.demand.update(step: 2, reads: ["face"])
        #expect(bench.next()[bench.liveness] == .number(0.9), "the answer to step 1's last frame")
        let asked = script.requests
        for _ in 0..<3 { #expect(bench.next()[bench.liveness] == .absent) }
        #expect(script.requests == asked)
        bench.demand.update(step: nil, reads: ["face.liveness"])
        for _ in 0..<3 { #expect(bench.next()[bench.liveness] == .absent, "after the flow nothing is asked") }
        #expect(script.requests == asked)
      }
    }
  }

  @Test("a service that fails writes face.liveness_error, with what failed")
  func failure() throws {
    let bench = try ServiceBench(["pad.url=http://127.0.0.1:\(try freeLoopbackPort())/6/liveness"])
    _ = bench.next()
    guard case .string(let error) = bench.next()[bench.error] else {
      Issue.record("no face.liveness_error")
      return
    }
    #expect(error.hasPrefix("unreachable: cannot reach http://127.0.0.1:"), "\(error)")
  }

  @Test("pad.url with pad.model is a settings error when the run starts, naming both")
  func both() throws {
    let estimator = LivenessServiceEstimator(
      settings: try serviceSettings(["pad.url=http://127.0.0.1:1/liveness", "pad.model=model.onnx"]))
    #expect {
      try estimator.prepare(schema: MeasurementSchema())
    } throws: { error in
      "\(error)".contains("pad.url and pad.model are both set")
    }
  }

  @Test("a pad.url that is no URL is an error when the run starts, saying what to set")
  func notAURL() throws {
    let estimator = LivenessServiceEstimator(settings: try serviceSettings(["pad.url=luna:8080"]))
    #expect {
      try estimator.prepare(schema: MeasurementSchema())
    } throws: { error in
      guard let error = error as? EstimatorError else { return false }
      return error.message.contains("not an http:// or https:// URL: luna:8080")
        && error.help?.contains("pad.url") == true
    }
  }
}
