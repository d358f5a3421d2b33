import Foundation
import Licensing
import TestSupport
import Testing

/// `run` and `record` check the license before they open the input: every
/// way it can fail exits 3 with the reason and what to do, and the events
/// file still ends with a result.
@Suite struct LicenseRunTests {
  private let flow = "examples/liveness.lua"
  private let trace = "examples/traces/liveness-pass.jsonl"

  /// Runs the liveness flow on its trace against the license in `files`.
  private func run(
    _ files: TestLicense.Files, _ folder: TemporaryFolder, extra: [String] = [], input: String? = nil,
    flow: String? = nil
  ) throws -> Outcome {
    try workbench(
      ["run", flow ?? self.flow, "--input", input ?? trace, "--quiet", "--events", folder.file("events.jsonl")]
        + extra,
      folder: folder, environment: ["WORKBENCH_LICENSE_CONFIG": files.config])
  }

  /// The events file of a refused run: only the result, with reason license_error.
  private func expectRefusedEvents(_ folder: TemporaryFolder, sourceLocation: SourceLocation = #_sourceLocation)
    throws
  {
    let records = try events(folder.file("events.jsonl"), sourceLocation: sourceLocation)
    let last = try result(records, sourceLocation: sourceLocation)
    #expect(records.count == 1, "\(records)", sourceLocation: sourceLocation)
    #expect(last["reason"] == "license_error", sourceLocation: sourceLocation)
    #expect(last["success"] == false, sourceLocation: sourceLocation)
  }

  @Test func aLicenseThatHoldsLetsTheRunGoOn() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let files = try TestLicense.make(in: try folder.subfolder("license"), features: ["face"])
    let outcome = try run(files, folder)
    #expect(outcome.status == 0, "\(outcome)")
    #expect(try result(events(folder.file("events.jsonl")))["success"] == true)
  }

  @Test func aMissingLicenseNamesTheActivateCommand() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let files = try TestLicense.make(in: try folder.subfolder("license"), features: ["face"])
    try FileManager.default.removeItem(atPath: files.folder + "/license.dat")
    let outcome = try run(files, folder)
    #expect(outcome.status == 3, "\(outcome)")
    #expect(outcome.stderr.contains("\(files.folder)/license.dat: no license file"), "\(outcome)")
    #expect(
      outcome.stderr.contains(
        "help: get it from http://127.0.0.1:9: workbench license activate --config \(files.config);"),
      "\(outcome)")
    try expectRefusedEvents(folder)
  }

  @Test func oneChangedByteIsRefused() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let files = try TestLicense.make(in: try folder.subfolder("license"), features: ["face"])
    let path = files.folder + "/license.dat"
    var bytes = [UInt8](try #require(FileManager.default.contents(atPath: path)))
    let index = try #require(bytes.count > 60 ? 60 : nil)
    bytes[index] = bytes[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    let outcome = try run(files, folder)
    #expect(outcome.status == 3, "\(outcome)")
    #expect(outcome.stderr.contains("the license's signature does not verify"), "\(outcome)")
    #expect(outcome.stderr.contains("license activate --config \(files.config) --force"), "\(outcome)")
    try expectRefusedEvents(folder)
  }

  @Test func anExpiredLicenseIsRefused() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let files = try TestLicense.make(
      in: try folder.subfolder("license"), features: ["face"], expiresIn: 10, issuedAgo: 11 * 86_400)
    let outcome = try run(files, folder)
    #expect(outcome.status == 3, "\(outcome)")
    #expect(outcome.stderr.contains("the license expired on"), "\(outcome)")
    try expectRefusedEvents(folder)
  }

  @Test func aLicenseForAnotherProductIsRefused() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let files = try TestLicense.make(in: try folder.subfolder("license"), product: "kiosk", features: ["face"])
    let outcome = try run(files, folder)
    #expect(outcome.status == 3, "\(outcome)")
    #expect(outcome.stderr.contains("the license is for product 'kiosk', not 'workbench'"), "\(outcome)")
    try expectRefusedEvents(folder)
  }

  @Test func aLicenseForAnotherMachineIsRefused() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let other = try #require(MachineFingerprint(String(repeating: "0", count: MachineFingerprint.length)))
    let files = try TestLicense.make(in: try folder.subfolder("license"), features: ["face"], binding: .machine(other))
    let outcome = try run(files, folder)
    #expect(outcome.status == 3, "\(outcome)")
    #expect(
      outcome.stderr.contains(
        "the license is bound to another machine (fingerprint \(String(repeating: "0", count: 32)))"),
      "\(outcome)")
    try expectRefusedEvents(folder)
  }

  @Test func aFlowThatReadsFaceMeasurementsNeedsTheFaceFeature() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let files = try TestLicense.make(in: try folder.subfolder("license"), features: ["card"])
    let outcome = try run(files, folder)
    #expect(outcome.status == 3, "\(outcome)")
    #expect(outcome.stderr.contains("the license does not grant the feature 'face' (it grants: card)"), "\(outcome)")
    try expectRefusedEvents(folder)
  }

  @Test func recordingNeedsTheRecordFeature() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let files = try TestLicense.make(in: try folder.subfolder("license"), features: ["face"])
    let recording = "examples/recordings/face-blink.avi"
    let kept = folder.file("kept.avi")
    let outcome = try run(
      files, folder, extra: ["--record", kept], input: recording, flow: "examples/image-quality.lua")
    #expect(outcome.status == 3, "\(outcome)")
    #expect(outcome.stderr.contains("does not grant the feature 'record' (it grants: face)"), "\(outcome)")
    #expect(!FileManager.default.fileExists(atPath: kept))
    try expectRefusedEvents(folder)

    let record = try workbench(
      ["record", "--input", recording, "--out", kept], folder: folder,
      environment: ["WORKBENCH_LICENSE_CONFIG": files.config])
    #expect(record.status == 3, "\(record)")
    #expect(record.stderr.contains("does not grant the feature 'record' (it grants: face)"), "\(record)")
    #expect(!FileManager.default.fileExists(atPath: kept))
  }

  @Test func theDefaultConfigurationIsTheSettingsFoldersThenTheBundledOne() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let files = try TestLicense.make(in: try folder.subfolder("settings"), features: ["face"])
    // No WORKBENCH_LICENSE_CONFIG: --settings-dir's license.conf is the one checked.
    let outcome = try workbench(
      ["run", flow, "--input", trace, "--quiet", "--settings-dir", files.folder], folder: folder,
      environment: ["WORKBENCH_LICENSE_CONFIG": nil])
    #expect(outcome.status == 0, "\(outcome)")

    // A public key that is not there names the options that give one.
    let noKey = try run(files, folder, extra: ["--license-key", folder.file("nothere.key.json")])
    #expect(noKey.status == 3, "\(noKey)")
    #expect(noKey.stderr.contains("no public key to check the license with"), "\(noKey)")
    #expect(noKey.stderr.contains("--license-key"), "\(noKey)")
  }

  @Test func licenseShowReadsTheConfiguration() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let files = try TestLicense.make(in: try folder.subfolder("license"), features: ["face", "record"])
    let shown = try workbench(["license", "show", "--config", files.config], folder: folder)
    #expect(shown.status == 0, "\(shown)")
    #expect(shown.stdout.contains("features      face, record\n"), "\(shown)")
    #expect(shown.stdout.hasSuffix("verifies      yes, on this machine\n"), "\(shown)")
    let feature = try workbench(["license", "show", "--config", files.config, "--feature", "card"], folder: folder)
    #expect(feature.status == 3, "\(feature)")
  }
}
