import Foundation
import TestSupport
import Testing

/// `workbench license trial`: after it, the bundled examples run with no
/// other step; where the machine's licensing is configured, it is refused.
@Suite struct LicenseTrialCommandTests {
  /// No license configuration but the ones a run finds by itself.
  private let ownLicensing: [String: String?] = ["WORKBENCH_LICENSE_CONFIG": nil]

  @Test func aTrialLetsTheExamplesRunAndASecondOneChangesNothing() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    // Said as the user would type it, whatever the current folder.
    var underHome = ownLicensing
    underHome["HOME"] = folder.path
    let trial = try workbench(["license", "trial"], folder: folder, environment: underHome)
    #expect(trial.status == 0, "\(trial)")
    #expect(trial.stdout.contains("wrote a trial license for this machine to ~/xdg-config/workbench"), "\(trial)")
    #expect(trial.stdout.contains("TRIAL"), "\(trial)")
    let run = try workbench(
      ["run", "examples/liveness.lua", "--input", "examples/traces/liveness-pass.jsonl", "--quiet"], folder: folder,
      environment: ownLicensing)
    #expect(run.status == 0, "\(run)")
    let again = try workbench(["license", "trial"], folder: folder, environment: ownLicensing)
    #expect(again.status == 0, "\(again)")
    #expect(again.stdout.contains("a trial license holds"), "\(again)")
  }

  @Test func theMachinesLicensingIsNotReplaced() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let machine = try folder.write("etc-workbench/license.conf", "<settings/>")
    let trial = try workbench(["license", "trial"], folder: folder, environment: ownLicensing)
    #expect(trial.status == 3, "\(trial)")
    #expect(trial.stderr.contains("this machine's licensing is configured in \(machine)"), "\(trial)")
    #expect(trial.stderr.contains("help: ask whoever set up this machine"), "\(trial)")
    #expect(!FileManager.default.fileExists(atPath: folder.file("xdg-config/workbench/license.dat")))
  }
}
