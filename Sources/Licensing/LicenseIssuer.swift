import Diagnostics
import Foundation

/// Signs licenses with the private key.
public struct LicenseIssuer: Sendable {
  public let privateKey: LicensePrivateKey

  /// The longest license `issue` writes: 100 years.
  public static let maximumDays = 36_500

  public init(privateKey: LicensePrivateKey) { self.privateKey = privateKey }

  /// The license file (license.dat) for `license`: its canonical payload
  /// and the payload's Ed25519 signature.
  public func issue(_ license: License) throws(WorkbenchError) -> Data {
    try Self.check(license)
    let payload = license.canonicalPayload
    return LicenseDocument.encode(payload: payload, signature: privateKey.signature(for: payload))
  }

  /// The license file for a new license valid for `days` days from `now`.
  public func issue(
    product: String, eid: String, binding: LicenseBinding, days: Int, features: [String], now: Date = Date(),
    licenseID: String = UUID().uuidString.lowercased()
  ) throws(WorkbenchError) -> Data {
    guard (1...Self.maximumDays).contains(days) else {
      throw WorkbenchError(
        .usage, "--days must be from 1 to \(Self.maximumDays), got \(days)",
        help: "give the number of days the license holds, e.g. --days 365")
    }
    let issued = License.wholeSeconds(now)
    let license = License(
      id: licenseID, product: product, eid: eid, binding: binding, issued: issued,
      expires: issued.addingTimeInterval(Double(days) * 86_400), features: features)
    return try issue(license)
  }

  /// Feature names as written after --features: comma-separated, each
  /// one of ``LicenseFeature/known``.
  public static func features(fromList text: String) throws(WorkbenchError) -> [String] {
    let names = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    var problems: [Diagnostic] = []
    for name in names where !LicenseFeature.known.contains(name) {
      let close = LicenseFeature.known.first { editDistance($0, name.lowercased()) <= 2 }
      problems.append(
        Diagnostic(
          "--features: unknown feature '\(name)' (known: \(LicenseFeature.known.joined(separator: ", ")))",
          help: close.map { "did you mean '\($0)'?" } ?? "give a comma-separated list, e.g. --features card,face"))
    }
    guard problems.isEmpty else { throw WorkbenchError(.usage, problems) }
    guard !names.isEmpty else {
      throw WorkbenchError(
        .usage, "--features: give at least one feature", help: "e.g. --features card,face")
    }
    return Array(Set(names)).sorted()
  }

  private static func check(_ license: License) throws(WorkbenchError) {
    var problems: [Diagnostic] = []
    if license.product.trimmingCharacters(in: .whitespaces).isEmpty {
      problems.append(Diagnostic("--product must not be empty", help: "give the product the license is for"))
    }
    if license.eid.trimmingCharacters(in: .whitespaces).isEmpty {
      problems.append(Diagnostic("--eid must not be empty", help: "give the customer's entitlement ID"))
    }
    if license.expires <= license.issued {
      problems.append(Diagnostic("the license would expire before it is issued", help: "give --days 1 or more"))
    }
    guard problems.isEmpty else { throw WorkbenchError(.usage, problems) }
  }
}
