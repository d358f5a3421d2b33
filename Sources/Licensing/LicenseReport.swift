import Diagnostics
import Foundation

/// The text `workbench license show` and `issue` print.
public enum LicenseReport {
  /// What the license grants and until when, and whether it holds here.
  /// Nothing but the path when it could not be read or its signature does
  /// not verify: then nothing in it can be trusted.
  public static func render(_ inspection: LicenseInspection, fingerprint: MachineFingerprint, now: Date) -> String {
    var rows: [(String, String)] = [("license", inspection.path)]
    if let license = inspection.license {
      rows += describe(license, fingerprint: fingerprint, now: now)
      if let key = inspection.signedBy { rows.append(("signed by", key.description)) }
    }
    rows.append(("this machine", fingerprint.value))
    var reasons: [String] = []
    for failure in inspection.failures where !reasons.contains(failure.kind.summary) {
      reasons.append(failure.kind.summary)
    }
    rows.append(
      ("verifies", inspection.verifies ? "yes, on this machine" : "no: " + reasons.joined(separator: ", ")))
    return table(rows)
  }

  /// The rows that describe a license.
  public static func describe(_ license: License, fingerprint: MachineFingerprint?, now: Date) -> [(String, String)] {
    let machine: String
    switch license.binding {
    case .container: machine = "any (container mode)"
    case .machine(let bound):
      machine =
        bound.value + (fingerprint == nil ? "" : bound == fingerprint ? " (this machine)" : " (another machine)")
    }
    let days = license.daysLeft(at: now)
    let left: String
    if license.isExpired(at: now) {
      left = "expired " + LicenseVerifier.ago(license.expires, now: now)
    } else if license.expires.timeIntervalSince(now) < 86_400 {
      left = "less than a day left"
    } else {
      left = days == 1 ? "1 day left" : "\(days) days left"
    }
    return [
      ("id", license.id),
      ("product", license.product),
      ("EID", license.eid),
      ("machine", machine),
      ("issued", License.timestamp(license.issued)),
      ("expires", License.timestamp(license.expires) + " (\(left))"),
      ("features", license.features.isEmpty ? "none" : license.features.joined(separator: ", ")),
    ]
  }

  public static func table(_ rows: [(String, String)]) -> String {
    let width = (rows.map(\.0.count).max() ?? 0) + 2
    return rows.map { $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + $0.1 }.joined(separator: "\n")
  }
}

/// Where licenses are kept.
public enum LicenseStore {
  /// Checks a license received (from `issue`, or later from the activation
  /// server) and, only when it holds, stores it at `path` atomically,
  /// replacing the license there. A license that does not hold leaves the
  /// old file untouched.
  @discardableResult
  public static func install(
    data: Data, at path: String, verifier: LicenseVerifier, product: String?, eid: String? = nil,
    fingerprint: MachineFingerprint, now: Date = Date()
  ) throws(WorkbenchError) -> License {
    let license = try verifier.verify(
      data: data, path: path, product: product, eid: eid, fingerprint: fingerprint, now: now)
    try LicenseFiles.write(data, to: path, mode: 0o644, replacing: true)
    return license
  }
}
