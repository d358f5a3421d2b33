import Diagnostics
import Foundation
import Licensing
import TestSupport
import Testing

/// A fixed signing key, so that tests need no randomness.
let testPrivateKey = LicensePrivateKey(rawRepresentation: Data(repeating: 7, count: 32))!
let otherPrivateKey = LicensePrivateKey(rawRepresentation: Data(repeating: 9, count: 32))!

/// 2026-01-01T00:00:00Z.
let newYear = Date(timeIntervalSince1970: 1_767_225_600)
let day: TimeInterval = 86_400

let thisMachine = MachineFingerprint("0123456789abcdef0123456789abcdef")!
let otherMachine = MachineFingerprint("fedcba9876543210fedcba9876543210")!

/// A license.conf with `params` in its Licensing::Settings section.
func conf(_ params: String) -> String {
  """
  <?xml version="1.0" encoding="UTF-8"?>
  <settings>
    <section name="Licensing::Settings">
  \(params)
    </section>
  </settings>

  """
}

/// The three required params of license.conf, one per line (lines 4 to 6).
let requiredParams = """
      <param name="Server" type="Value::String" text="http://127.0.0.1:8740"/>
      <param name="EID" type="Value::String" text="ACME-0001"/>
      <param name="ProductID" type="Value::String" text="workbench"/>
  """

/// A vllicense.plist with `entries` in its top-level dict (from line 4).
func plist(_ entries: String) -> String {
  """
  <?xml version="1.0" encoding="UTF-8"?>
  <plist version="1.0">
  <dict>
  \(entries)
  </dict>
  </plist>

  """
}

/// The problems that loading `text` as `name` reports (and checks that it
/// reports some, with exit status 3).
func configProblems(
  _ name: String, _ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
) throws -> [Diagnostic] {
  let folder = try TemporaryFolder()
  defer { folder.remove() }
  let path = try folder.write(name, text)
  do {
    let config = try LicenseConfigLoader.load(path: path)
    Issue.record("loaded without problems: \(config)", sourceLocation: sourceLocation)
    return []
  } catch {
    #expect(error.status == .license, sourceLocation: sourceLocation)
    #expect(error.diagnostics.allSatisfy { $0.location?.file == path }, sourceLocation: sourceLocation)
    #expect(error.diagnostics.allSatisfy { $0.help != nil }, sourceLocation: sourceLocation)
    // Tests compare file names, not the temporary folder.
    return error.diagnostics.map { diagnostic in
      var diagnostic = diagnostic
      diagnostic.location?.file = name
      return diagnostic
    }
  }
}

func loadConfig(_ name: String, _ text: String) throws -> LicenseConfig {
  let folder = try TemporaryFolder()
  defer { folder.remove() }
  return try LicenseConfigLoader.load(path: try folder.write(name, text))
}

/// A signed license file for `thisMachine`, issued at `newYear` for 30 days.
func issueTestLicense(
  product: String = "workbench", eid: String = "ACME-0001", binding: LicenseBinding = .machine(thisMachine),
  days: Int = 30, features: [String] = ["face", "card"], key: LicensePrivateKey = testPrivateKey
) throws -> Data {
  try LicenseIssuer(privateKey: key).issue(
    product: product, eid: eid, binding: binding, days: days, features: features, now: newYear,
    licenseID: "00000000-0000-4000-8000-000000000001")
}

let verifier = LicenseVerifier(publicKeys: [testPrivateKey.publicKey])

/// The fields of a license file's JSON.
func envelope(_ data: Data) throws -> [String: Any] {
  try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

/// The license file with its envelope's fields replaced.
func rewrite(_ data: Data, _ change: (inout [String: Any]) -> Void) throws -> Data {
  var fields = try envelope(data)
  change(&fields)
  return try JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])
}

/// The kinds of the failures of `data` checked as `thisMachine` at `now`.
func failureKinds(
  _ data: Data, product: String? = "workbench", eid: String? = nil, fingerprint: MachineFingerprint = thisMachine,
  now: Date = newYear.addingTimeInterval(day), requiredFeatures: [String] = []
) -> [LicenseFailure.Kind] {
  verifier.inspect(
    data: data, path: "license.dat", product: product, eid: eid, fingerprint: fingerprint, now: now,
    requiredFeatures: requiredFeatures
  ).failures.map(\.kind)
}

/// The decoded bytes of the base64 field `name` of a license file.
func decodedField(_ name: String, of data: Data) throws -> Data {
  let text = try #require(try envelope(data)[name] as? String)
  return try #require(Data(base64Encoded: text))
}
