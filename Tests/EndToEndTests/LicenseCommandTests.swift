import Foundation
import TestSupport
import Testing

@Suite struct LicenseCommandTests {
  /// keygen, then issue a license for this machine into `folder`.
  private func issue(_ folder: TemporaryFolder, _ binding: [String] = ["--this-machine"]) throws -> Outcome {
    let keygen = try workbench(["license", "keygen", "--out", folder.file("keys")], folder: folder)
    #expect(keygen.status == 0, "\(keygen)")
    return try workbench(
      [
        "license", "issue", "--key", folder.file("keys/private.key.json"), "--product", "workbench", "--eid",
        "ACME-1", "--days", "30", "--features", "face,card", "--out", folder.file("license.dat"),
      ] + binding, folder: folder)
  }

  private func show(_ folder: TemporaryFolder, _ extra: [String] = []) throws -> Outcome {
    try workbench(
      ["license", "show", "--license", folder.file("license.dat"), "--public-key", folder.file("keys/public.key.json")]
        + extra, folder: folder)
  }

  @Test func keygenIssueAndShow() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let issued = try issue(folder)
    #expect(issued.status == 0, "\(issued)")
    #expect(issued.stdout.contains("features  card, face"), "\(issued)")
    let shown = try show(folder)
    #expect(shown.status == 0, "\(shown)")
    #expect(shown.stdout.contains("(this machine)"), "\(shown)")
    #expect(shown.stdout.contains("(30 days left)"), "\(shown)")
    #expect(shown.stdout.hasSuffix("verifies      yes, on this machine\n"), "\(shown)")
    #expect(shown.stderr.isEmpty, "\(shown)")

    let again = try workbench(["license", "keygen", "--out", folder.file("keys")], folder: folder)
    #expect(again.status == 2, "\(again)")
    #expect(again.stderr.contains("already exists; not overwritten"), "\(again)")
  }

  @Test func aLicenseThatDoesNotHoldHereExitsWith3() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    #expect(try issue(folder, ["--fingerprint", "0123456789abcdef0123456789abcdef"]).status == 0)
    let elsewhere = try show(folder, ["--product", "other"])
    #expect(elsewhere.status == 3, "\(elsewhere)")
    #expect(elsewhere.stdout.contains("verifies      no: wrong product, another machine"), "\(elsewhere)")
    #expect(elsewhere.stderr.contains("the license is for product 'workbench', not 'other'"), "\(elsewhere)")
    #expect(elsewhere.stderr.contains("the license is bound to another machine"), "\(elsewhere)")

    // One changed character of the payload.
    let path = folder.file("license.dat")
    var text = try #require(fileText(path))
    let index = try #require(text.range(of: #""payload":""#)).upperBound
    text.replaceSubrange(index...index, with: text[index] == "A" ? "B" : "A")
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    let tampered = try show(folder)
    #expect(tampered.status == 3, "\(tampered)")
    #expect(tampered.stderr.contains("the license's signature does not verify"), "\(tampered)")

    try FileManager.default.removeItem(atPath: path)
    let missing = try show(folder)
    #expect(missing.status == 3, "\(missing)")
    #expect(missing.stderr.contains("license.dat: no license file"), "\(missing)")
  }

  @Test func issueNeedsExactlyOneBinding() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let outcome = try issue(folder, ["--this-machine", "--container"])
    #expect(outcome.status == 2, "\(outcome)")
    #expect(outcome.stderr.contains("give exactly one of --fingerprint HEX, --this-machine or --container"))
    #expect(!FileManager.default.fileExists(atPath: folder.file("license.dat")))
  }

  @Test func checkConfigPrintsTheValuesOrEveryProblem() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let shipped = try workbench(["license", "check-config"], folder: folder)
    #expect(shipped.status == 0, "\(shipped)")
    #expect(shipped.stdout.hasPrefix("configs/license.conf: ok"), "\(shipped)")
    let plist = try workbench(["license", "check-config", "--config", "configs/vllicense.plist"], folder: folder)
    #expect(plist.status == 0, "\(plist)")

    let bad = try folder.write(
      "license.conf",
      """
      <settings>
        <section name="Licensing::Settings">
          <param name="Server" type="Value::String" text="http://127.0.0.1:8740"/>
          <param name="ConnectionTimeout" type="Value::Int1" x="-1"/>
        </section>
      </settings>
      """)
    let outcome = try workbench(["license", "check-config", "--config", bad], folder: folder)
    #expect(outcome.status == 3, "\(outcome)")
    #expect(outcome.stdout.isEmpty, "\(outcome)")
    #expect(outcome.stderr.contains("\(bad):2 (key 'EID'): 'EID' is required"), "\(outcome)")
    #expect(outcome.stderr.contains("\(bad):4 (key 'ConnectionTimeout'): 'ConnectionTimeout' must not be negative"))
    #expect(outcome.stderr.hasSuffix("3 problems in \(bad)\n"), "\(outcome)")
  }
}
