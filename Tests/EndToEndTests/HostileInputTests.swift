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

  @Test func aDeviceGivenAsARecordingIsNamedAsADevice() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try workbench(["run", "examples/liveness-blink.lua", "--input", "/dev/zero", "-q"], folder: folder)
    #expect(outcome.status == 4, "\(outcome)")
    #expect(outcome.stderr.contains("/dev/zero: is a character device, not a recording file"), "\(outcome)")
    #expect(outcome.stderr.contains("--camera DEVICE"), "\(outcome)")
  }
}
