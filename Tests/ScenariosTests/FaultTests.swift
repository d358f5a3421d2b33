import Capture
import CaptureTesting
import Diagnostics
import Imaging
import JSONCore
import Measurements
import Testing

@testable import Scenarios

@Suite("Faults")
struct FaultTests {
  /// A small gray picture with some texture, as a JPEG.
  private static let jpeg: [UInt8] = {
    let image = ImageBuffer(width: 64, height: 48, format: .gray8)
    for i in 0..<image.byteCount { image.pixels[i] = UInt8((i * 7) % 200 + 30) }
    return (try? JPEGEncoder().encode(image)) ?? []
  }()

  private func frames(_ count: Int) -> InMemoryFrameSource {
    InMemoryFrameSource(jpeg: Self.jpeg, count: count, info: SourceInfo(kind: "test", name: "test", fps: 30))
  }

  private func drain(_ source: FaultySource) throws -> [CapturedFrame] {
    var out: [CapturedFrame] = []
    while let frame = try source.next() { out.append(frame) }
    return out
  }

  @Test("drop by list and by rate (from the seed: the same every time)")
  func drops() throws {
    let listed = try drain(FaultySource(frames(10), faults: [.dropFrames([2, 3])], seed: 1))
    #expect(listed.map(\.index) == [0, 1, 4, 5, 6, 7, 8, 9])
    let a = try drain(FaultySource(frames(300), faults: [.dropRate(0.2)], seed: 7)).map(\.index)
    let b = try drain(FaultySource(frames(300), faults: [.dropRate(0.2)], seed: 7)).map(\.index)
    #expect(a == b)
    #expect((220...260).contains(a.count), "\(a.count) kept")
  }

  @Test("duplicate, reorder, replay")
  func times() throws {
    let duplicated = try drain(FaultySource(frames(5), faults: [.duplicate(at: 2.0 / 30, count: 2)], seed: 1))
    #expect(duplicated.map(\.index) == [0, 1, 2, 2, 2, 3, 4])
    let swapped = try drain(FaultySource(frames(5), faults: [.reorder(at: 1.0 / 30)], seed: 1))
    #expect(swapped.map(\.index) == [0, 2, 1, 3, 4])
    #expect(swapped.map(\.t) == (0..<5).map { Double($0) / 30 })
    let replayed = try drain(FaultySource(frames(4), faults: [.replay(times: 3)], seed: 1))
    #expect(replayed.map(\.index) == Array(0..<12))
    #expect(zip(replayed, replayed.dropFirst()).allSatisfy { $0.t < $1.t })
  }

  @Test("close: a time on any input; it changes no frame, and the earliest one counts")
  func close() throws {
    let fault = try Fault.parse(
      .object(JSONObject([("close", .object(JSONObject([("at", 1.5)])))])), key: "faults[1]", file: "s.lua")
    #expect(fault == .close(at: 1.5))
    #expect(!fault.touchesFrames)
    #expect(Fault.closeTime([.dropRate(0.1), .close(at: 2), .close(at: 1)]) == 1)
    #expect(Fault.closeTime([.unplug(at: 1)]) == nil)
    #expect(FaultyTraceInput.unsupported([fault]).isEmpty)
    #expect(throws: WorkbenchError.self) {
      try Fault.parse(.object(JSONObject([("close", "soon")])), key: "faults[1]", file: "s.lua")
    }
    let signal = CloseSignal(at: 0.1)
    signal.saw(0.05)
    #expect(!signal.due)
    signal.saw(0.1)
    #expect(signal.due)
  }

  @Test("unplug ends with the camera gone; corrupt garbles one frame; pixels change in their window")
  func camera() throws {
    let unplugged = FaultySource(frames(10), faults: [.unplug(at: 0.1)], seed: 1)
    var seen = 0
    #expect(throws: CaptureError.self) {
      while try unplugged.next() != nil { seen += 1 }
    }
    #expect(seen == 3)
    let corrupt = try drain(FaultySource(frames(5), faults: [.corrupt(frame: 1)], seed: 1))
    let original = try drain(FaultySource(frames(5), faults: [], seed: 1))
    guard case .jpeg(let bad) = corrupt[1].payload, case .jpeg(let good) = original[1].payload else {
      Issue.record("payloads")
      return
    }
    #expect(bad != good)
    #expect(throws: (any Error).self) {
      try JPEGDecoder().decode(bad, into: ImageBuffer(format: .gray8), format: .gray8)
    }
    let dark = try drain(FaultySource(frames(5), faults: [.pixels(.darken(factor: 0.1), from: 0.05, to: 0.1)], seed: 1))
    #expect(
      dark.map { if case .image = $0.payload { return true } else { return false } } == [
        false, false, true, true, false,
      ])
  }

  @Test("measurement faults: add, scale and set inside their window only")
  func measurements() throws {
    let schema = MeasurementSchema()
    let yaw = try schema.node(path: "face.yaw").get()
    let faults = MeasurementFaults([
      .measure(field: "face.yaw", add: 20, scale: nil, set: nil, from: 1, to: 2),
      .measure(field: "card.found", add: nil, scale: nil, set: .bool(false), from: 0, to: 10),
    ])
    var inside = MeasurementFrame(t: 1.5, index: 0)
    inside[yaw] = .number(3)
    faults.apply(&inside, schema: schema)
    #expect(inside[yaw] == .number(23))
    #expect(inside[try schema.node(path: "card.found").get()] == .bool(false))
    var outside = MeasurementFrame(t: 2.5, index: 1)
    outside[yaw] = .number(3)
    faults.apply(&outside, schema: schema)
    #expect(outside[yaw] == .number(3))
  }

  @Test("remove = true makes a measurement absent, and does not make its group appear")
  func removal() throws {
    let schema = MeasurementSchema()
    let pitch = try schema.node(path: "face.pitch").get()
    let face = try #require(schema.lookup(path: "face"))
    let pose = try schema.node(path: "pose.pitch").get()
    let poseGroup = try #require(schema.lookup(path: "pose"))
    let faults = MeasurementFaults([
      .measure(field: "face.pitch", add: nil, scale: nil, set: .null, from: 0, to: 1),
      .measure(field: "pose.pitch", add: nil, scale: nil, set: .null, from: 0, to: 1),
    ])
    var frame = MeasurementFrame(t: 0.5, index: 0)
    frame[face] = .table
    frame[pitch] = .number(12)
    faults.apply(&frame, schema: schema)
    #expect(frame[pitch] == .absent)
    #expect(frame[face] == .table)
    #expect(frame[pose] == .absent)
    #expect(frame[poseGroup] == .absent)
  }

  /// What the time faults make of a trace of `count` frames at 30 a
  /// second, each frame's only measurement its number.
  private func trace(_ count: Int, faults: [Fault], seed: UInt64) -> [MeasurementFrame] {
    let timeline = FaultTimeline<MeasurementFrame>(faults, seed: seed)
    let frames = (0..<count).map {
      MeasurementFrame(t: Double($0) / 30, index: Int64($0), values: [.integer(Int64($0))])
    }
    return frames.flatMap { timeline.items(for: $0) } + timeline.remaining()
  }

  @Test("frames and a trace get the same time faults: the same frames, in the same order, at the same times")
  func framesAndTracesAlike() throws {
    let faults: [Fault] = [
      .dropRate(0.2), .dropFrames([7]), .jitter(0.005), .duplicate(at: 0.5, count: 2), .reorder(at: 1),
      .freeze(from: 2, to: 3),
    ]
    for seed: UInt64 in [1, 7, 42] {
      let frames = try drain(FaultySource(frames(120), faults: faults, seed: seed))
      let measured = trace(120, faults: faults, seed: seed)
      #expect(frames.map(\.index) == measured.map(\.index))
      #expect(frames.map(\.t) == measured.map(\.t))
    }
  }

  @Test("a swap due at the last frame still delivers it, at its own time")
  func reorderAtTheEnd() throws {
    let frames = try drain(FaultySource(frames(3), faults: [.reorder(at: 2.0 / 30)], seed: 1))
    #expect(frames.map(\.index) == [0, 1, 2])
    let measured = trace(3, faults: [.reorder(at: 2.0 / 30)], seed: 1)
    #expect(measured.map(\.index) == [0, 1, 2])
    #expect(measured.map(\.t) == [0, 1.0 / 30, 2.0 / 30])
  }

  @Test("a frozen trace repeats the measurements from before the freeze, at its own numbers and times")
  func traceFreeze() {
    let measured = trace(4, faults: [.freeze(from: 1.0 / 30, to: 2.0 / 30)], seed: 1)
    #expect(measured.map(\.values) == [[.integer(0)], [.integer(0)], [.integer(0)], [.integer(3)]])
    #expect(measured.map(\.index) == [0, 1, 2, 3])
    #expect(measured.map(\.t) == (0..<4).map { Double($0) / 30 })
  }
}
