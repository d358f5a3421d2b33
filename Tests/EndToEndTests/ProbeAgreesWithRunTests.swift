import Capture
import Foundation
import Imaging
import TestSupport
import Testing

/// `probe` and `run` read a recording by one rule: what probe calls
/// readable, run reads; what run would skip, probe says.
@Suite struct ProbeAgreesWithRunTests {
  /// An AVI with no frames: both say it has none, exit 4.
  @Test func aRecordingWithNoFramesIsAnInputErrorForBoth() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("empty.avi")
    try AVIWriter(path: path, width: 64, height: 48, fps: 30).finish()
    let probe = try workbench(["probe", path], folder: folder)
    #expect(probe.status == 4, "\(probe)")
    #expect(probe.stderr.contains("it has no frames"), "\(probe)")
    let run = try workbench(["run", "examples/liveness.lua", "--input", path, "-q"], folder: folder)
    #expect(run.status == 4, "\(run)")
    #expect(run.stderr.contains("it has no frames"), "\(run)")
  }

  /// Frames of 8192×8192 are within 8192 a side but over 33,177,600 pixels:
  /// run skips them, so probe does not call them readable, and says why.
  @Test func framesOverTheSizeRuleAreSkippedByRunAndNamedByProbe() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let big = try JPEGEncoder().encode(ImageBuffer(width: 8192, height: 8192, format: .gray8), quality: 50)
    let small = try JPEGEncoder().encode(ImageBuffer(width: 64, height: 48, format: .gray8), quality: 50)
    let allBig = folder.file("big.mjpeg")
    try Data(big + big).write(to: URL(fileURLWithPath: allBig))
    let probe = try workbench(["probe", allBig], folder: folder)
    #expect(probe.status == 4, "\(probe)")
    #expect(probe.stdout.contains("run skips 2 of the 2 frames: the JPEG is 8192×8192 pixels"), "\(probe)")
    #expect(probe.stderr.contains("none of its 2 frames can be read"), "\(probe)")
    let run = try workbench(["run", "examples/liveness.lua", "--input", allBig, "-q"], folder: folder)
    #expect(run.status == 4, "\(run)")
    #expect(run.stderr.contains("none of its 2 frames can be read"), "\(run)")

    // One frame of three within the rule: readable, with the warning.
    let mixed = folder.file("mixed.mjpeg")
    try Data(big + small + big).write(to: URL(fileURLWithPath: mixed))
    let some = try workbench(["probe", mixed, "--json"], folder: folder)
    #expect(some.status == 0, "\(some)")
    #expect(some.stdout.contains("\"damaged\":2"), "\(some)")
    #expect(some.stdout.contains("run skips 2 of the 3 frames"), "\(some)")
  }
}
