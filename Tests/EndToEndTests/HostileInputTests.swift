import Foundation
import TestSupport
import Testing

/// Inputs a careless user gives: each gets a message that says what is
/// wrong, and the documented exit code.
@Suite struct HostileInputTests {
  let pass = "examples/traces/liveness-pass.jsonl"

  @Test func aNegativeSeedIsOutOfRangeNotAMissingValue() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(
      ["run", "examples/liveness.lua", "--input", pass, "--seed", "-1", "-q"], folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains("'flow.seed' = -1 is out of range: allowed 0 ... 4294967295"), "\(outcome)")
    #expect(!outcome.stderr.contains("Missing value"), "\(outcome)")
  }

  /// A user's bytes quoted in an error or a warning reach the terminal with
  /// their control characters escaped: an ESC cannot recolour or clear it.
  @Test func controlCharactersFromAUsersFileAreEscapedOnTheTerminal() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let trace = try folder.write("esc.jsonl", "\u{1B}[31mRED\n")
    let outcome = try workbench(["run", "examples/liveness.lua", "--input", trace, "-q"], folder: folder)
    #expect(outcome.status == 4, "\(outcome)")
    #expect(outcome.stderr.contains("unexpected character '\\u{1B}'"), "\(outcome)")
    let option = try workbench(["run", "examples/liveness.lua", "--input", pass, "--bo\u{1B}[2Jgus"], folder: folder)
    #expect(option.status == 2, "\(option)")
    #expect(option.stderr.contains("--bo\\u{1B}[2Jgus"), "\(option)")
    for run in [outcome, option] {
      #expect(!run.stderr.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x9B }, "\(run)")
    }
  }

  /// One trace line with 300,000 keys in one object: reading it used to be
  /// quadratic (still running after minutes, and Ctrl-C waited for it).
  /// The run must simply reach the end of its input.
  @Test func aTraceLineWithHundredsOfThousandsOfKeysIsReadInOnePass() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let trace = folder.file("many-keys.jsonl")
    let keys = (0..<300_000).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
    try ("{\"workbench_trace\":1}\n{\"t\":0,\"face\":{" + keys + "}}\n").write(
      toFile: trace, atomically: true, encoding: .utf8)
    // Linear reading takes about a second; the safety limit only keeps a quadratic one from hanging the suite.
    let outcome = try Launched(["run", "examples/liveness.lua", "--input", trace, "--quiet"], folder: folder)
      .wait(safetyLimit: 120)
    #expect(outcome.status == 1, "\(outcome)")
    #expect(!outcome.signaled, "\(outcome)")
  }

  @Test func aDeviceGivenAsARecordingIsNamedAsADevice() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(["run", "examples/liveness-blink.lua", "--input", "/dev/zero", "-q"], folder: folder)
    #expect(outcome.status == 4, "\(outcome)")
    #expect(outcome.stderr.contains("/dev/zero: is a character device, not a recording file"), "\(outcome)")
    #expect(outcome.stderr.contains("--camera DEVICE"), "\(outcome)")
  }
}

/// A disk that fills up while recording: exit 2 (an output), a short
/// summary, and the frames so far kept as a finished, readable recording
/// with no hidden temporary file left behind. Needs a small tmpfs, which
/// the suite mounts as root.
@Suite struct FullDiskTests {
  /// An AVI, and a fragmented MP4 whose first fragment (about 190 kB) fits
  /// and whose second does not: its trailer cannot be written either.
  @Test(arguments: [("session.avi", "200k"), ("session.mp4", "300k")])
  func recordingToAFullDiskKeepsWhatFitsAndExitsTwo(name: String, size: String) throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let disk = folder.file("disk")
    try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
    try #require(
      mount("tmpfs", disk, "tmpfs", 0, "size=\(size)") == 0, "mounting a tmpfs: \(String(cString: strerror(errno)))")
    defer { umount(disk) }
    let out = disk + "/" + name
    let outcome = try workbench(
      ["record", "--input", "examples/recordings/face-blink.avi", "--out", out], folder: folder)
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains("No space left on device"), "\(outcome)")
    #expect(outcome.stderr.contains("(write error)"), "the summary does not repeat the error: \(outcome)")
    #expect(outcome.stderr.components(separatedBy: "No space left on device").count == 2, "\(outcome)")
    let left = try FileManager.default.contentsOfDirectory(atPath: disk).sorted()
    #expect(left.contains(name) && !left.contains { $0.hasPrefix(".") }, "no temporary file: \(left)")
    if name.hasSuffix(".avi") { #expect(left == [name, name + ".timestamps.jsonl"], "\(left)") }
    let replay = try workbench(
      ["run", "examples/image-quality.lua", "--input", out, "--events", folder.file("e.jsonl"), "-q"], folder: folder)
    #expect(replay.status == 0 || replay.status == 1, "the kept recording reads: \(replay)")
    let frames = try result(events(folder.file("e.jsonl")))["frames"]?.integerValue ?? 0
    #expect(frames > 0)
  }
}
