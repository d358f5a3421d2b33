import Diagnostics
import Foundation
import Licensing
import TestSupport
import Testing

/// `workbench license trial`: a license for this machine and the examples'
/// features in one step, which never takes the place of an integrator's licensing.
@Suite struct LicenseTrialTests {
  private let now = Date(timeIntervalSince1970: 1_800_000_000)

  private func trial(_ folder: TemporaryFolder, environment: [String: String] = [:]) -> LicenseTrial {
    LicenseTrial(folder: folder.file("user/workbench"), systemFolder: folder.file("etc"), environment: environment)
  }

  @Test func aTrialHoldsForThisMachineAndEveryExampleFeatureAndKeepsNoSigningKey() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let trial = trial(folder)
    guard case .issued(let license) = try trial.run(fingerprint: thisMachine, now: now) else {
      Issue.record("no trial was issued")
      return
    }
    #expect(license.eid == LicenseTrial.eid)
    #expect(license.fingerprint == thisMachine)
    #expect(license.features == LicenseFeature.known)
    #expect(license.expires == now.addingTimeInterval(30 * 86_400))
    // A run finds it as it finds any configuration in that folder.
    let gate = LicenseGate.locate(
      configOption: nil, publicKeyOption: nil, folders: [folder.file("etc"), trial.folder], environment: [:])
    #expect(gate.configPath == trial.configPath)
    #expect(try gate.check(features: ["card", "face"], fingerprint: thisMachine, now: now) == license)
    #expect(throws: WorkbenchError.self) {
      try gate.check(features: ["face"], fingerprint: otherMachine, now: now)
    }
    let files = try FileManager.default.contentsOfDirectory(atPath: trial.folder).sorted()
    #expect(files == ["license-public.key.json", "license.conf", "license.dat"])
  }

  @Test func aTrialThatHoldsIsKeptAndAnExpiredOneIsRenewed() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let trial = trial(folder)
    guard case .issued(let first) = try trial.run(fingerprint: thisMachine, now: now) else {
      Issue.record("no trial was issued")
      return
    }
    guard case .stillHolds(let kept) = try trial.run(fingerprint: thisMachine, now: now.addingTimeInterval(86_400))
    else {
      Issue.record("a trial that holds was replaced")
      return
    }
    #expect(kept == first)
    let later = now.addingTimeInterval(31 * 86_400)
    guard case .issued(let renewed) = try trial.run(fingerprint: thisMachine, now: later) else {
      Issue.record("an expired trial was not renewed")
      return
    }
    #expect(renewed.id != first.id)
    #expect(renewed.expires > later)
  }

  @Test func anIntegratorsLicensingIsNeverReplaced() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let named = trial(folder, environment: [LicenseGate.configEnvironment: "/srv/acme/license.conf"])
    expectRefused(
      try named.run(fingerprint: thisMachine, now: now), saying: "/srv/acme/license.conf names the licensing")

    let machine = try folder.write("etc/license.conf", "<settings/>")
    expectRefused(
      try trial(folder).run(fingerprint: thisMachine, now: now),
      saying: "this machine's licensing is configured in \(machine)")
    try FileManager.default.removeItem(atPath: machine)

    let own = try folder.write(
      "user/workbench/license.conf", LicenseTrialTests.configuration(eid: "ACME-1"))
    expectRefused(try trial(folder).run(fingerprint: thisMachine, now: now), saying: "your own licensing configuration")
    #expect(try String(contentsOfFile: own, encoding: .utf8).contains("ACME-1"), "left as it was")
    #expect(!FileManager.default.fileExists(atPath: folder.file("user/workbench/license.dat")))
  }

  private func expectRefused(
    _ body: @autoclosure () throws -> LicenseTrial.Outcome, saying text: String,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) {
    do {
      _ = try body()
      Issue.record("not refused", sourceLocation: sourceLocation)
    } catch let error as WorkbenchError {
      #expect(error.status == .license, sourceLocation: sourceLocation)
      #expect("\(error)".contains(text), "\(error)", sourceLocation: sourceLocation)
    } catch {
      Issue.record("\(error)", sourceLocation: sourceLocation)
    }
  }

  static func configuration(eid: String) -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <settings>
      <section name="Licensing::Settings">
        <param name="Server" type="Value::String" text="https://licenses.acme.test"/>
        <param name="EID" type="Value::String" text="\(eid)"/>
        <param name="ProductID" type="Value::String" text="workbench"/>
      </section>
    </settings>
    """
  }
}
