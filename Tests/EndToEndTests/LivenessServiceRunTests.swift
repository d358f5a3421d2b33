import FaceEstimationTesting
import Foundation
import HTTPTestSupport
import JSONCore
import TestSupport
import Testing

/// `face.liveness.http` in whole runs of LUNA ID's OneShotLiveness on the
/// bundled real recording, against a liveness service the test starts on
/// loopback (LUNA PLATFORM's request and answer).
@Suite(.requires(FaceBackendInstall.landmarks), .serialized)
struct LivenessServiceRunTests {
  private let recording = "examples/recordings/face-blink.avi"

  /// The one-shot flow against `pad.url`; its exit status and result event.
  func oneShot(url: String, in folder: TemporaryFolder, set: [String] = []) throws -> (Int32, JSONValue, String) {
    let eventsFile = folder.file("e-\(UUID().uuidString.prefix(8)).jsonl")
    let outcome = try workbench(
      [
        "run", "examples/oneshot-liveness.lua", "--input", recording, "--quiet", "--set", "pad.url=\(url)",
        "--set", "oneshot.min_face_px=100", "--events", eventsFile,
      ] + set.flatMap { ["--set", $0] }, folder: folder)
    let result = try #require(try events(eventsFile).last { $0["type"] == "result" })
    return (outcome.status, result, outcome.stderr)
  }

  @Test func aLiveAnswerPassesAndASpoofFailsWithLunasCode() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    // A spoof is rejected frame by frame as the search goes on (LUNA ID's livenessQuality), so the
    // search runs to its timeout: 1 s, within the recording.
    for (probability, status, code, most) in [(0.92, Int32(0), Int64(0), 5), (0.08, 1, 1004, 40)] {
      let service = LivenessServiceDouble([.answer(LivenessServiceDouble.live(probability))])
      let (exit, result, stderr) = try await withLoopbackServer(respond: service.respond) { port in
        try await offThePool {
          try oneShot(url: "http://127.0.0.1:\(port)/6/liveness", in: folder, set: ["oneshot.timeout=1"])
        }
      }
      #expect(exit == status, "\(result)\n\(stderr)")
      #expect(result["code"]?.integerValue == code, "\(result)")
      // A live face passes on the first frames; one frame at a time is asked, never more.
      #expect((1...most).contains(service.requests), "\(service.requests) requests")
      let sent = try #require(service.received.first)
      #expect(sent.type.hasPrefix("multipart/form-data"))
    }
  }

  @Test func aDeadOrSlowServiceIsLivenessUnavailableNotAHungRun() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let (deadExit, dead, deadErr) = try oneShot(
      url: "http://127.0.0.1:\(try freeLoopbackPort())/6/liveness", in: folder)
    #expect(deadExit == 1, "\(dead)\n\(deadErr)")
    #expect(dead["code"] == 1020 && dead["reason"]?.stringValue == "liveness_unavailable", "\(dead)")
    #expect(deadErr.contains("face.liveness.http: cannot reach http://127.0.0.1:"), "\(deadErr)")

    let service = LivenessServiceDouble([.slow(3, LivenessServiceDouble.live(0.9))])
    let (slowExit, slow, _) = try await withLoopbackServer(respond: service.respond) { port in
      try await offThePool {
        try oneShot(url: "http://127.0.0.1:\(port)/6/liveness", in: folder, set: ["pad.timeout=0.2"])
      }
    }
    #expect(slowExit == 1 && slow["code"] == 1020, "\(slow)")
  }

  @Test func pad_urlWithPad_modelStopsAtStartNamingBoth() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let (exit, result, stderr) = try oneShot(
      url: "http://127.0.0.1:1/6/liveness", in: folder, set: ["pad.model=model.onnx"])
    #expect(exit == 2, "\(result)")
    #expect(result["code"] == 1000)
    #expect(stderr.contains("pad.url and pad.model are both set"), "\(stderr)")
  }
}
