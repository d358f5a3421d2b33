import Foundation
import JSONCore
import TestSupport
import Testing

/// `scripts/bench soak` cut short: examples/card-then-face.lua session after
/// session on one RunSession, over the session's frames looped (simulated
/// time) and over the scripted V4L2 camera streaming them in real time.
/// The soak runs in a process of its own, so that its resident memory is
/// its own and not that of the tests running beside it.
@Suite(.requires(FaceBackendInstall.recognition))
struct SoakTests {
  /// Growth of VmRSS from the end of the warm-up to the end of a part that
  /// still counts as flat: allocator noise moves it by a few MiB (up to 3
  /// over such a short part); a leak of 3 MiB per session or 10 KiB per
  /// frame goes past it. The two-hour `scripts/bench soak` is the finer test.
  static let toleranceMiB = 8.0

  @Test("a kiosk's sessions one after another, simulated and on a live camera, keep memory flat")
  func sessionAfterSessionKeepsMemoryFlat() throws {
    let folder = try TemporaryFolder(prefix: "soak")
    defer { folder.remove() }
    let summaryPath = folder.file("summary.json")
    // 24 simulated seconds (720 frames, three sessions; the first warms
    // up), and the camera for 10 s after its first session: the build is
    // a debug build, which measures about 12 frames a second.
    let outcome = try Launched(
      ["soak"], folder: folder,
      environment: [
        "SOAK_MINUTES": "0.4", "SOAK_CAMERA_SECONDS": "10", "SOAK_SUMMARY": summaryPath,
        "SOAK_OUT": folder.file("outputs"), "OPENBLAS_NUM_THREADS": "1",
      ], executable: "workbench-bench"
    ).wait(safetyLimit: 900)
    #expect(outcome.status == 0, "\(outcome)")
    let summary = try JSONParser.parse(try #require(fileText(summaryPath), "no summary: \(outcome)"))
    for part in ["simulated", "camera"] {
      let figures = try #require(summary[part], "no \(part) part: \(outcome)")
      let warm = try #require(figures["rss_warm_up_mib"]?.doubleValue)
      let end = try #require(figures["rss_end_mib"]?.doubleValue)
      let frames = try #require(figures["frames"]?.integerValue)
      #expect(frames > (figures["warm_up_frames"]?.integerValue ?? frames), "\(part): \(figures)")
      #expect(end - warm <= Self.toleranceMiB, "\(part): VmRSS \(warm) MiB after the warm-up, \(end) MiB at the end")
    }
    // On simulated time every session passes, the next one starting after it.
    let simulated = try #require(summary["simulated"])
    #expect(simulated["frames"]?.integerValue == 720)
    let passed = try #require(simulated["passed"]?.integerValue)
    #expect(passed >= 2 && passed > (simulated["warm_up_passed"]?.integerValue ?? passed), "\(simulated)")
    // The frames the flow processed and those it dropped came from the camera.
    let camera = try #require(summary["camera"])
    let delivered = try #require(camera["camera_frames"]?.integerValue)
    let processed = try #require(camera["frames"]?.integerValue)
    let dropped = try #require(camera["dropped"]?.integerValue)
    #expect(processed + dropped <= delivered, "\(camera)")
  }
}
