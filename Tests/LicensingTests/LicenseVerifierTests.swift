import Diagnostics
import Foundation
import JSONCore
import Licensing
import TestSupport
import Testing

@Suite struct LicenseRoundTripTests {
  @Test func anIssuedLicenseVerifies() throws {
    let data = try issueTestLicense(features: ["face", "card", "face"])
    let license = try verifier.verify(
      data: data, path: "license.dat", product: "workbench", eid: "ACME-0001", fingerprint: thisMachine,
      now: newYear.addingTimeInterval(day), requiredFeatures: ["card", "face"])
    #expect(license.id == "00000000-0000-4000-8000-000000000001")
    #expect(license.product == "workbench")
    #expect(license.eid == "ACME-0001")
    #expect(license.binding == .machine(thisMachine))
    #expect(license.fingerprint == thisMachine)
    #expect(!license.containerMode)
    #expect(license.issued == newYear)
    #expect(license.expires == newYear.addingTimeInterval(30 * day))
    #expect(license.features == ["card", "face"])
    #expect(license.daysLeft(at: newYear.addingTimeInterval(day)) == 29)
  }

  @Test func theDocumentHoldsTheCanonicalPayloadAndItsSignature() throws {
    let data = try issueTestLicense()
    let text = String(decoding: data, as: UTF8.self)
    #expect(text.hasPrefix(#"{"workbench_license":1,"payload":""#))
    #expect(text.hasSuffix("\"}\n"))
    let payload = try decodedField("payload", of: data)
    let signature = try decodedField("signature", of: data)
    #expect(signature.count == 64)
    #expect(testPrivateKey.publicKey.isValidSignature(signature, for: payload))
    #expect(
      String(decoding: payload, as: UTF8.self)
        == #"{"container_mode":false,"eid":"ACME-0001","expires":"2026-01-31T00:00:00Z","features":["card","face"],"#
        + #""fingerprint":"0123456789abcdef0123456789abcdef","issued":"2026-01-01T00:00:00Z","#
        + #""license_id":"00000000-0000-4000-8000-000000000001","product":"workbench"}"#)
    // Issuing the same license again gives the same bytes (Ed25519 is deterministic).
    #expect(try issueTestLicense() == data)
  }

  @Test func aContainerModeLicenseVerifiesOnAnyMachine() throws {
    let data = try issueTestLicense(binding: .container)
    let payload = try decodedField("payload", of: data)
    #expect(String(decoding: payload, as: UTF8.self).contains(#""container_mode":true"#))
    #expect(String(decoding: payload, as: UTF8.self).contains(#""fingerprint":null"#))
    for machine in [thisMachine, otherMachine, MachineFingerprint.current()] {
      let license = try verifier.verify(
        data: data, path: "license.dat", product: "workbench", fingerprint: machine, now: newYear)
      #expect(license.binding == .container)
    }
  }

  @Test func anyOfSeveralPublicKeysMayHaveSigned() throws {
    let data = try issueTestLicense(key: otherPrivateKey)
    let both = LicenseVerifier(publicKeys: [testPrivateKey.publicKey, otherPrivateKey.publicKey])
    let inspection = both.inspect(data: data, path: "license.dat", product: nil, fingerprint: thisMachine, now: newYear)
    #expect(inspection.verifies)
    #expect(inspection.signedBy == otherPrivateKey.publicKey)
  }

  @Test func theIssuerChecksWhatItSigns() throws {
    let issuer = LicenseIssuer(privateKey: testPrivateKey)
    #expect(throws: WorkbenchError.self) {
      try issuer.issue(product: "p", eid: "e", binding: .container, days: 0, features: ["card"])
    }
    #expect(throws: WorkbenchError.self) {
      try issuer.issue(product: " ", eid: "", binding: .container, days: 1, features: ["card"])
    }
    #expect(try LicenseIssuer.features(fromList: "face, card,face") == ["card", "face"])
    #expect {
      try LicenseIssuer.features(fromList: "card,fase,teleport")
    } throws: { error in
      let error = try #require(error as? WorkbenchError)
      return error.status == .usage && error.diagnostics.count == 2
        && error.diagnostics[0].help == "did you mean 'face'?"
    }
    #expect(throws: WorkbenchError.self) { try LicenseIssuer.features(fromList: " , ") }
  }
}

@Suite struct LicenseFailureTests {
  /// Flips one bit of the base64-encoded field `name` of the license file.
  func flippingByte(_ index: Int, of name: String, in data: Data) throws -> Data {
    try rewrite(data) { fields in
      var bytes = Data(base64Encoded: fields[name] as! String)!
      bytes[index] ^= 0x01
      fields[name] = bytes.base64EncodedString()
    }
  }

  @Test func aChangedPayloadIsTampered() throws {
    let data = try issueTestLicense()
    let payloadSize = Data(base64Encoded: try envelope(data)["payload"] as! String)!.count
    for index in [0, 40, payloadSize - 1] {
      let changed = try flippingByte(index, of: "payload", in: data)
      #expect(failureKinds(changed) == [.tampered])
    }
  }

  @Test func aChangedSignatureIsTampered() throws {
    let data = try issueTestLicense()
    for index in [0, 31, 63] {
      #expect(failureKinds(try flippingByte(index, of: "signature", in: data)) == [.tampered])
    }
    let short = try rewrite(data) { $0["signature"] = Data(count: 10).base64EncodedString() }
    #expect(failureKinds(short) == [.tampered])
  }

  @Test func aPayloadWithLongerExpiryButTheOldSignatureIsTampered() throws {
    let data = try issueTestLicense()
    let forged = try rewrite(data) { fields in
      let payload = String(decoding: Data(base64Encoded: fields["payload"] as! String)!, as: UTF8.self)
      fields["payload"] = Data(payload.replacingOccurrences(of: "2026-01-31", with: "2036-01-31").utf8)
        .base64EncodedString()
    }
    let inspection = verifier.inspect(
      data: forged, path: "license.dat", product: "workbench", fingerprint: thisMachine, now: newYear)
    #expect(inspection.failures.map(\.kind) == [.tampered])
    // Nothing from an unverified payload is trusted, or shown.
    #expect(inspection.license == nil)
  }

  @Test func aLicenseFromAnotherKeyIsTampered() throws {
    let data = try issueTestLicense(key: otherPrivateKey)
    #expect(failureKinds(data) == [.tampered])
    #expect(
      LicenseVerifier(publicKeys: []).inspect(data: data, path: "l", product: nil, fingerprint: thisMachine)
        .failures.map(\.kind) == [.tampered])
  }

  @Test func anExpiredLicenseSaysWhen() throws {
    let data = try issueTestLicense(days: 30)
    let expiry = newYear.addingTimeInterval(30 * day)
    #expect(failureKinds(data, now: expiry.addingTimeInterval(-1)) == [])
    #expect(failureKinds(data, now: expiry) == [.expired])
    let inspection = verifier.inspect(
      data: data, path: "license.dat", product: "workbench", fingerprint: thisMachine,
      now: expiry.addingTimeInterval(3 * day + 5))
    #expect(inspection.failures.map(\.kind) == [.expired])
    #expect(inspection.failures.first?.diagnostic.message == "the license expired on 2026-01-31T00:00:00Z (3 days ago)")
    #expect(inspection.license?.isExpired(at: expiry) == true)
  }

  @Test func aLicenseIssuedInTheFutureIsNotYetValid() throws {
    let data = try issueTestLicense()
    #expect(failureKinds(data, now: newYear.addingTimeInterval(-day / 2)) == [])
    #expect(failureKinds(data, now: newYear.addingTimeInterval(-2 * day)) == [.notYetValid])
  }

  @Test func theWrongProductEIDOrMachineIsNamed() throws {
    let data = try issueTestLicense()
    #expect(failureKinds(data, product: "other") == [.wrongProduct])
    #expect(failureKinds(data, product: nil) == [])
    #expect(failureKinds(data, eid: "ACME-0002") == [.wrongEID])
    #expect(failureKinds(data, eid: "ACME-0001") == [])
    #expect(failureKinds(data, fingerprint: otherMachine) == [.wrongMachine])
    let message = verifier.inspect(
      data: data, path: "license.dat", product: "workbench", fingerprint: otherMachine, now: newYear
    ).failures.first?.diagnostic
    #expect(
      message?.message
        == "the license is bound to another machine (fingerprint 0123456789abcdef0123456789abcdef); "
        + "this machine's fingerprint is fedcba9876543210fedcba9876543210")
    #expect(message?.help?.contains("fedcba9876543210fedcba9876543210") == true)
  }

  @Test func aMissingFeatureIsNamed() throws {
    let data = try issueTestLicense(features: ["card"])
    #expect(failureKinds(data, requiredFeatures: ["card"]) == [])
    let inspection = verifier.inspect(
      data: data, path: "license.dat", product: "workbench", fingerprint: thisMachine, now: newYear,
      requiredFeatures: ["card", "record", "face"])
    #expect(inspection.failures.map(\.kind) == [.featureNotGranted, .featureNotGranted])
    #expect(
      inspection.failures.first?.diagnostic.message
        == "the license does not grant the feature 'record' (it grants: card)")
  }

  @Test func everyReasonIsCollected() throws {
    let data = try issueTestLicense(features: ["card"])
    let kinds = failureKinds(
      data, product: "other", eid: "E", fingerprint: otherMachine, now: newYear.addingTimeInterval(100 * day),
      requiredFeatures: ["face"])
    #expect(kinds == [.wrongProduct, .wrongEID, .wrongMachine, .expired, .featureNotGranted])
  }

  @Test func aMissingOrUnreadableFileIsNamed() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let missing = verifier.inspect(path: folder.file("license.dat"), product: nil, fingerprint: thisMachine)
    #expect(missing.failures.map(\.kind) == [.missing])
    #expect(missing.failures.first?.diagnostic.message == "no license file")
    #expect(missing.failures.first?.diagnostic.help?.contains(thisMachine.value) == true)
    #expect(
      verifier.inspect(path: folder.path, product: nil, fingerprint: thisMachine).failures.map(\.kind) == [
        .unreadable
      ])
  }

  @Test(arguments: [
    ("not json", "not a license file: not JSON"),
    ("[1]", #"not a license file: no "workbench_license" field"#),
    (#"{"workbench_license":2,"payload":"","signature":""}"#, "license format 2 is not supported"),
    (
      #"{"workbench_license":1,"payload":"e30=","signature":"AA==","note":"x"}"#,
      "not a license file: unknown field 'note'"
    ),
    (#"{"workbench_license":1,"payload":"%%%","signature":"AA=="}"#, "the license's payload is missing or not base64"),
    (#"{"workbench_license":1,"payload":"e30="}"#, "the license's signature is missing or not base64"),
  ])
  func aFileThatIsNoLicenseIsMalformed(text: String, message: String) {
    let inspection = verifier.inspect(
      data: Data(text.utf8), path: "license.dat", product: nil, fingerprint: thisMachine)
    #expect(inspection.failures.map(\.kind) == [.malformed])
    #expect(inspection.failures.first?.diagnostic.message.hasPrefix(message) == true)
  }

  @Test func aSignedPayloadThatCannotBeReadIsMalformed() {
    func signed(_ payload: String) -> Data {
      let bytes = Data(payload.utf8)
      return LicenseDocument.encode(payload: bytes, signature: testPrivateKey.signature(for: bytes))
    }
    let valid = String(
      decoding: License(
        product: "p", eid: "e", binding: .container, issued: newYear, expires: newYear.addingTimeInterval(day),
        features: []
      ).canonicalPayload, as: UTF8.self)
    let newer = verifier.inspect(
      data: signed(valid.dropLast() + #","max_cameras":1}"#), path: "l", product: nil, fingerprint: thisMachine)
    #expect(newer.failures.map(\.kind) == [.malformed])
    #expect(newer.failures.first?.diagnostic.help == "it was issued by a newer workbench; update workbench")
    for broken in [
      "[]", "nope", valid.replacingOccurrences(of: #""fingerprint":null"#, with: #""fingerprint":"abc""#),
      valid.replacingOccurrences(of: "2026-01-01T00:00:00Z", with: "2026-01-01"),
    ] {
      #expect(
        verifier.inspect(data: signed(broken), path: "l", product: nil, fingerprint: thisMachine).failures.map(\.kind)
          == [.malformed], "\(broken)")
    }
  }

  @Test func verifyThrowsALicenseErrorWithADistinctMessagePerKind() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let good = try issueTestLicense(features: ["card"])
    let cases: [(Data?, String?, MachineFingerprint, Date, [String])] = [
      (nil, "workbench", thisMachine, newYear, []),
      (Data("{".utf8), "workbench", thisMachine, newYear, []),
      (try flippingByte(3, of: "payload", in: good), "workbench", thisMachine, newYear, []),
      (good, "workbench", thisMachine, newYear.addingTimeInterval(40 * day), []),
      (good, "other", thisMachine, newYear, []),
      (good, "workbench", otherMachine, newYear, []),
      (good, "workbench", thisMachine, newYear, ["record"]),
    ]
    var messages: Set<String> = []
    for (index, (data, product, fingerprint, now, features)) in cases.enumerated() {
      let path = folder.file("license-\(index).dat")
      if let data { try data.write(to: URL(fileURLWithPath: path)) }
      do {
        _ = try verifier.verify(
          path: path, product: product, fingerprint: fingerprint, now: now, requiredFeatures: features)
        Issue.record("case \(index) verified")
      } catch {
        #expect(error.status == .license)
        #expect(error.diagnostics.count == 1)
        let diagnostic = try #require(error.diagnostics.first)
        #expect(diagnostic.location?.file == path)
        #expect(diagnostic.help?.isEmpty == false)
        messages.insert(diagnostic.message.replacingOccurrences(of: path, with: ""))
      }
    }
    #expect(messages.count == cases.count)
  }

  @Test func installStoresOnlyALicenseThatHolds() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.file("license.dat")
    let first = try issueTestLicense(days: 10)
    try LicenseStore.install(
      data: first, at: path, verifier: verifier, product: "workbench", fingerprint: thisMachine, now: newYear)
    #expect(FileManager.default.contents(atPath: path) == first)
    let elsewhere = try issueTestLicense(binding: .machine(otherMachine))
    #expect(throws: WorkbenchError.self) {
      try LicenseStore.install(
        data: elsewhere, at: path, verifier: verifier, product: "workbench", fingerprint: thisMachine, now: newYear)
    }
    #expect(FileManager.default.contents(atPath: path) == first)
    let renewed = try issueTestLicense(days: 100)
    let license = try LicenseStore.install(
      data: renewed, at: path, verifier: verifier, product: "workbench", fingerprint: thisMachine, now: newYear)
    #expect(license.expires == newYear.addingTimeInterval(100 * day))
    #expect(FileManager.default.contents(atPath: path) == renewed)
    #expect(folder.listing == ["license.dat"])
  }
}

@Suite struct LicenseReportTests {
  @Test func showsWhatTheLicenseGrantsAndWhetherItHolds() throws {
    let data = try issueTestLicense()
    let now = newYear.addingTimeInterval(day)
    let holds = verifier.inspect(data: data, path: "license.dat", product: nil, fingerprint: thisMachine, now: now)
    #expect(
      LicenseReport.render(holds, fingerprint: thisMachine, now: now) == """
        license       license.dat
        id            00000000-0000-4000-8000-000000000001
        product       workbench
        EID           ACME-0001
        machine       0123456789abcdef0123456789abcdef (this machine)
        issued        2026-01-01T00:00:00Z
        expires       2026-01-31T00:00:00Z (29 days left)
        features      card, face
        signed by     \(testPrivateKey.publicKey)
        this machine  0123456789abcdef0123456789abcdef
        verifies      yes, on this machine
        """)
    let later = newYear.addingTimeInterval(45 * day)
    let fails = verifier.inspect(data: data, path: "license.dat", product: nil, fingerprint: otherMachine, now: later)
    let text = LicenseReport.render(fails, fingerprint: otherMachine, now: later)
    #expect(text.contains("machine       0123456789abcdef0123456789abcdef (another machine)"))
    #expect(text.contains("expires       2026-01-31T00:00:00Z (expired 15 days ago)"))
    #expect(text.hasSuffix("verifies      no: another machine, expired"))
  }

  @Test func showsNothingOfALicenseThatDoesNotVerify() throws {
    let data = try issueTestLicense(key: otherPrivateKey)
    let inspection = verifier.inspect(data: data, path: "license.dat", product: nil, fingerprint: thisMachine)
    #expect(
      LicenseReport.render(inspection, fingerprint: thisMachine, now: newYear) == """
        license       license.dat
        this machine  0123456789abcdef0123456789abcdef
        verifies      no: signature does not verify
        """)
  }
}
