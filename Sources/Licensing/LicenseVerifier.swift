import Diagnostics
import Foundation
import JSONCore

/// One reason a license does not hold, with its message and advice.
public struct LicenseFailure: Sendable, Equatable {
  public enum Kind: String, Sendable, CaseIterable {
    /// There is no file at the path.
    case missing
    /// The file is there but cannot be read.
    case unreadable
    /// Not a license file, or a version or field this workbench cannot read.
    case malformed
    /// The signature does not verify: changed after issue, or another key.
    case tampered
    case expired
    /// Issued later than this machine's clock says it is now.
    case notYetValid
    case wrongProduct
    case wrongEID
    /// Bound to another machine's fingerprint.
    case wrongMachine
    case featureNotGranted

    /// A few words for a summary line.
    public var summary: String {
      switch self {
      case .missing: return "no license file"
      case .unreadable: return "unreadable"
      case .malformed: return "not a valid license file"
      case .tampered: return "signature does not verify"
      case .expired: return "expired"
      case .notYetValid: return "issued in the future"
      case .wrongProduct: return "wrong product"
      case .wrongEID: return "wrong EID"
      case .wrongMachine: return "another machine"
      case .featureNotGranted: return "feature not granted"
      }
    }
  }

  public var kind: Kind
  public var diagnostic: Diagnostic

  public init(_ kind: Kind, _ diagnostic: Diagnostic) {
    self.kind = kind
    self.diagnostic = diagnostic
  }
}

/// What checking one license file found: the signed license (when the
/// signature verified and the payload could be read) and every reason it
/// does not hold.
public struct LicenseInspection: Sendable {
  public var path: String
  public var license: License?
  /// The key whose signature verified.
  public var signedBy: LicensePublicKey?
  public var failures: [LicenseFailure]

  /// The license holds for what was asked.
  public var verifies: Bool { license != nil && failures.isEmpty }

  /// The failures as one error with exit status 3 (license); nil when it verifies.
  public var error: WorkbenchError? {
    failures.isEmpty ? nil : WorkbenchError(.license, failures.map(\.diagnostic))
  }
}

/// Checks license files against the public keys they may be signed with.
/// The signature is checked over the payload's exact bytes before any field
/// of it is read.
public struct LicenseVerifier: Sendable {
  public let publicKeys: [LicensePublicKey]

  /// A license issued up to this long after the local clock's "now" still
  /// holds (clocks of issuer and user differ).
  public static let clockTolerance: TimeInterval = 86_400

  public init(publicKeys: [LicensePublicKey]) { self.publicKeys = publicKeys }

  /// The license in the file at `path`, if it holds: signed by one of the
  /// keys, for `product` and `eid` (nil: any), for the machine `fingerprint`
  /// (unless container mode), not expired at `now`, and granting every
  /// feature of `requiredFeatures`. Otherwise every reason, exit status 3.
  public func verify(
    path: String, product: String?, eid: String? = nil, fingerprint: MachineFingerprint, now: Date = Date(),
    requiredFeatures: [String] = []
  ) throws(WorkbenchError) -> License {
    try verified(
      inspect(
        path: path, product: product, eid: eid, fingerprint: fingerprint, now: now,
        requiredFeatures: requiredFeatures))
  }

  /// As ``verify(path:product:eid:fingerprint:now:requiredFeatures:)``, for a
  /// license already in memory (one received from a server); `path` names it.
  public func verify(
    data: Data, path: String, product: String?, eid: String? = nil, fingerprint: MachineFingerprint,
    now: Date = Date(), requiredFeatures: [String] = []
  ) throws(WorkbenchError) -> License {
    try verified(
      inspect(
        data: data, path: path, product: product, eid: eid, fingerprint: fingerprint, now: now,
        requiredFeatures: requiredFeatures))
  }

  private func verified(_ inspection: LicenseInspection) throws(WorkbenchError) -> License {
    if let error = inspection.error { throw error }
    guard let license = inspection.license else {
      throw WorkbenchError(.license, "the license cannot be read", at: SourceLocation(file: inspection.path))
    }
    return license
  }

  /// Everything ``verify(path:product:eid:fingerprint:now:requiredFeatures:)``
  /// checks, without stopping: `license show` prints a license that does
  /// not hold here, with the reasons.
  public func inspect(
    path: String, product: String?, eid: String? = nil, fingerprint: MachineFingerprint, now: Date = Date(),
    requiredFeatures: [String] = []
  ) -> LicenseInspection {
    switch LicenseFiles.read(path) {
    case .success(let data):
      return inspect(
        data: data, path: path, product: product, eid: eid, fingerprint: fingerprint, now: now,
        requiredFeatures: requiredFeatures)
    case .failure(.missing):
      return LicenseInspection(
        path: path, license: nil, signedBy: nil,
        failures: [
          LicenseFailure(
            .missing,
            Diagnostic(
              "no license file", at: SourceLocation(file: path),
              help: "put the license issued for this machine here, or give its path with --license; "
                + "this machine's fingerprint is \(fingerprint)"))
        ])
    case .failure(let failure):
      return LicenseInspection(
        path: path, license: nil, signedBy: nil,
        failures: [
          LicenseFailure(
            .unreadable,
            Diagnostic(
              "cannot read the license file: it \(failure.text)", at: SourceLocation(file: path),
              help: "check the path and the file's permissions"))
        ])
    }
  }

  public func inspect(
    data: Data, path: String, product: String?, eid: String? = nil, fingerprint: MachineFingerprint,
    now: Date = Date(), requiredFeatures: [String] = []
  ) -> LicenseInspection {
    var inspection = LicenseInspection(path: path, license: nil, signedBy: nil, failures: [])
    func fail(_ kind: LicenseFailure.Kind, _ message: String, line: Int? = nil, key: String? = nil, help: String) {
      inspection.failures.append(
        LicenseFailure(kind, Diagnostic(message, at: SourceLocation(file: path, line: line, key: key), help: help)))
    }
    let notALicense =
      "a license file is the JSON that `workbench license issue` writes; get the file again from whoever issued it"

    // 1. The envelope.
    let document: JSONValue
    do {
      document = try JSONParser.parse(bytes: Array(data))
    } catch {
      fail(.malformed, "not a license file: not JSON (\(error))", line: error.line, help: notALicense)
      return inspection
    }
    guard let envelope = document.objectValue, let version = envelope[LicenseDocument.formatKey] else {
      fail(.malformed, "not a license file: no \"\(LicenseDocument.formatKey)\" field", help: notALicense)
      return inspection
    }
    guard version.integerValue == LicenseDocument.version else {
      fail(
        .malformed,
        "license format \(version.jsonText) is not supported (this workbench reads version \(LicenseDocument.version))",
        key: LicenseDocument.formatKey, help: "update workbench, or ask for a license in format 1")
      return inspection
    }
    let allowed = [LicenseDocument.formatKey, "payload", "signature"]
    if let unknown = envelope.keys.first(where: { !allowed.contains($0) }) {
      fail(.malformed, "not a license file: unknown field '\(unknown)'", key: unknown, help: notALicense)
      return inspection
    }
    guard let payloadText = envelope["payload"]?.stringValue, let payload = Data(base64Encoded: payloadText) else {
      fail(.malformed, "the license's payload is missing or not base64", key: "payload", help: notALicense)
      return inspection
    }
    guard let signatureText = envelope["signature"]?.stringValue,
      let signature = Data(base64Encoded: signatureText)
    else {
      fail(.malformed, "the license's signature is missing or not base64", key: "signature", help: notALicense)
      return inspection
    }

    // 2. The signature, over the payload's exact bytes, before anything in it is read.
    guard let key = publicKeys.first(where: { $0.isValidSignature(signature, for: payload) }) else {
      let keys =
        publicKeys.isEmpty ? "no public key was given" : "public key " + publicKeys.map(\.id).joined(separator: ", ")
      fail(
        .tampered,
        "the license's signature does not verify (\(keys)): the file was changed after it was issued, "
          + "or it was signed with another key",
        help: "do not edit license files; get the original file again from whoever issued it, "
          + "and check that the public key is the one it was issued with")
      return inspection
    }
    inspection.signedBy = key

    // 3. The signed payload.
    let license: License
    switch License.decode(payload: payload) {
    case .success(let decoded): license = decoded
    case .failure(let problem):
      fail(
        .malformed, "the license is signed but cannot be read: \(problem.message)", key: "payload",
        help: problem.newer
          ? "it was issued by a newer workbench; update workbench" : "ask whoever issued it for a new license")
      return inspection
    }
    inspection.license = license

    // 4. What it is for, and until when.
    if let product, license.product != product {
      fail(
        .wrongProduct, "the license is for product '\(license.product)', not '\(product)'",
        help: "use the license issued for '\(product)', or check the product you asked for (ProductID in license.conf)")
    }
    if let eid, license.eid != eid {
      fail(
        .wrongEID, "the license is for EID '\(license.eid)', not '\(eid)'",
        help: "use the license issued for EID '\(eid)', or check EID in license.conf")
    }
    if case .machine(let bound) = license.binding, bound != fingerprint {
      fail(
        .wrongMachine,
        "the license is bound to another machine (fingerprint \(bound)); "
          + "this machine's fingerprint is \(fingerprint)",
        help: "a license holds only on the machine it was issued for: ask for one for fingerprint \(fingerprint), "
          + "or for a container-mode license if this runs in containers")
    }
    if license.isExpired(at: now) {
      fail(
        .expired,
        "the license expired on \(License.timestamp(license.expires)) (\(Self.ago(license.expires, now: now)))",
        help: "ask whoever issued it for a renewed license")
    } else if license.issued.timeIntervalSince(now) > Self.clockTolerance {
      fail(
        .notYetValid,
        "the license was issued on \(License.timestamp(license.issued)), "
          + "but this machine's clock says it is \(License.timestamp(now))",
        help: "check this machine's date and time")
    }
    for feature in requiredFeatures where !license.grants(feature) {
      let granted = license.features.isEmpty ? "none" : license.features.joined(separator: ", ")
      fail(
        .featureNotGranted, "the license does not grant the feature '\(feature)' (it grants: \(granted))",
        help: "ask for a license that includes '\(feature)'")
    }
    return inspection
  }

  /// "today", "1 day ago", "12 days ago".
  static func ago(_ date: Date, now: Date) -> String {
    let days = Int((now.timeIntervalSince(date) / 86_400).rounded(.down))
    switch days {
    case ..<1: return "less than a day ago"
    case 1: return "1 day ago"
    default: return "\(days) days ago"
    }
  }
}
