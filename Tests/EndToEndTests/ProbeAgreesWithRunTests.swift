import Capture
import Foundation
import Imaging
import JSONCore
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

/// `probe` on a measurement trace describes it instead of calling it an
/// unknown recording format.
@Suite struct TraceProbeTests {
  @Test func aTraceIsDescribedWithItsFieldsAndTheirEstimators() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let trace = "examples/traces/hkid-2018-pass.jsonl"
    let text = try workbench(["probe", trace], folder: folder)
    #expect(text.status == 0, "\(text)")
    #expect(text.stdout.contains("measurement trace, readable"), "\(text)")
    #expect(text.stdout.contains("workbench trace version 1"), "\(text)")
    #expect(text.stdout.contains("frames      160"), "\(text)")
    #expect(text.stdout.contains("constant, 30.000 fps"), "\(text)")
    #expect(text.stdout.contains("made by     card: card.found, card.tilt_x"), "\(text)")

    let json = try workbench(["probe", trace, "--json"], folder: folder)
    let probe = try JSONParser.parse(json.stdout)
    #expect(probe["kind"] == "trace" && probe["readable"] == true && probe["frames"] == .integer(160))
    #expect(probe["duration"]?.doubleValue.map { abs($0 - 159.0 / 30) < 1e-3 } == true, "\(json.stdout)")
    #expect(probe["fields"]?.arrayValue?.contains { $0["path"] == "card.tilt_y" } == true)
  }

  @Test func aBrokenTraceIsNotReadableAtItsLine() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = try folder.write(
      "t.jsonl", "{\"t\":0,\"card\":{\"corners\":[{\"x\":1}]},\"mine\":3}\n{\"t\":0.5}\n{\"t\":0.2}\n")
    let outcome = try workbench(["probe", path, "--json"], folder: folder)
    #expect(outcome.status == 4, "\(outcome)")
    let probe = try JSONParser.parse(outcome.stdout)
    #expect(probe["readable"] == false && probe["frames"] == .integer(2) && probe["line"] == .integer(3))
    #expect(probe["unknown_fields"] == .array(["mine"]), "\(outcome.stdout)")
    #expect(outcome.stderr.contains("t.jsonl:3: time goes backwards"), "\(outcome)")
  }
}
