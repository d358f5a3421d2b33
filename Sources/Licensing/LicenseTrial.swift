import Diagnostics
import Foundation

/// `workbench license trial`: a short license for this machine and the
/// bundled examples' features, with no server. It writes a licensing
/// configuration of its own into the user's settings folder: `license.conf`
/// (EID ``eid``), the public key of a key pair made on the spot, and the
/// license signed with it; the private key is never stored.
///
/// That key is trusted by that configuration alone. An integrator's
/// configuration (`--license-config`, WORKBENCH_LICENSE_CONFIG,
/// `--settings-dir` or /etc/workbench) trusts its own public key, so a trial
/// license never holds for it, and where the machine's licensing is
/// configured a trial is refused (docs/licensing.md).
public struct LicenseTrial: Sendable {
  /// The EID of every trial configuration: how a trial's own is told from a user's.
  public static let eid = "TRIAL"
  public static let product = "workbench"
  /// How long a trial holds.
  public static let days = 30
  /// What the bundled examples need.
  public static let features = LicenseFeature.known

  /// The user's settings folder, where the trial goes.
  public var folder: String
  /// The machine's settings folder (/etc/workbench), whose licensing a trial never replaces.
  public var systemFolder: String
  public var environment: [String: String]

  public init(folder: String, systemFolder: String, environment: [String: String]) {
    self.folder = folder
    self.systemFolder = systemFolder
    self.environment = environment
  }

  public var configPath: String { folder + "/" + LicenseGate.configFileNames[0] }
  public var licensePath: String { folder + "/" + LicenseConfig.defaultFilename }
  public var publicKeyPath: String { folder + "/" + LicenseGate.publicKeyFileName }

  public enum Outcome: Sendable {
    /// A new trial license was written.
    case issued(License)
    /// The trial written before still holds.
    case stillHolds(License)
  }

  /// Writes a trial unless one still holds; refuses where another licensing
  /// configuration is in charge.
  public func run(fingerprint: MachineFingerprint = .current(), now: Date = Date()) throws(WorkbenchError) -> Outcome {
    try refuseOtherLicensing()
    let gate = LicenseGate(configPath: configPath, publicKeyPath: publicKeyPath)
    if FileManager.default.fileExists(atPath: configPath),
      let license = try? gate.check(features: Self.features, fingerprint: fingerprint, now: now),
      license.expires.timeIntervalSince(now) >= 86_400
    {
      return .stillHolds(license)
    }
    try makeFolder()
    let pair = LicenseKeyPair.generate()
    let data = try LicenseIssuer(privateKey: pair.privateKey).issue(
      product: Self.product, eid: Self.eid, binding: .machine(fingerprint), days: Self.days, features: Self.features,
      now: now)
    // The key and the license before the configuration that names them: an
    // interrupted trial leaves no configuration pointing at missing files.
    try LicenseFiles.write(pair.publicKey.fileData, to: publicKeyPath, mode: 0o644, replacing: true)
    try LicenseFiles.write(data, to: licensePath, mode: 0o644, replacing: true)
    try LicenseFiles.write(Data(Self.configuration.utf8), to: configPath, mode: 0o644, replacing: true)
    return .issued(try gate.check(features: Self.features, fingerprint: fingerprint, now: now))
  }

  private func refuseOtherLicensing() throws(WorkbenchError) {
    if let named = environment[LicenseGate.configEnvironment], !named.isEmpty {
      throw WorkbenchError(
        .license,
        "\(LicenseGate.configEnvironment)=\(named) names the licensing configuration: a trial does not replace it",
        help:
          "get a license for that configuration (workbench license activate), or unset \(LicenseGate.configEnvironment)"
      )
    }
    for name in LicenseGate.configFileNames {
      let path = systemFolder + "/" + name
      if FileManager.default.fileExists(atPath: path) {
        throw WorkbenchError(
          .license, "this machine's licensing is configured in \(path): a trial does not replace it",
          at: SourceLocation(file: path),
          help: "ask whoever set up this machine for a license (workbench license activate)")
      }
    }
    for name in LicenseGate.configFileNames {
      let path = folder + "/" + name
      guard FileManager.default.fileExists(atPath: path) else { continue }
      let own = (try? LicenseConfigLoader.load(path: path))?.eid != Self.eid
      if own {
        throw WorkbenchError(
          .license, "holds your own licensing configuration: a trial does not replace it",
          at: SourceLocation(file: path),
          help: "get a license for it (workbench license activate), or move it away to start a trial")
      }
    }
  }

  private func makeFolder() throws(WorkbenchError) {
    do {
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    } catch {
      throw WorkbenchError(
        .usage, "cannot make the folder: \(error.localizedDescription)", at: SourceLocation(file: folder),
        help: "check the permissions of its parent folder, or set XDG_CONFIG_HOME to a folder you can write")
    }
  }

  /// The trial's license.conf: the bundled format, with the trial's EID. The
  /// Server is required by the format; a trial is never activated against it.
  static let configuration = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!-- A trial of workbench for this machine, written by `workbench license trial`
         (docs/licensing.md). Its public key, beside it, was made for this trial alone. -->
    <settings>
      <section name="Licensing::Settings">
        <param name="Server" type="Value::String" text="http://127.0.0.1:8740"/>
        <param name="EID" type="Value::String" text="\(eid)"/>
        <param name="ProductID" type="Value::String" text="\(product)"/>
        <param name="Filename" type="Value::String" text="\(LicenseConfig.defaultFilename)"/>
        <param name="ContainerMode" type="Value::Int1" x="0"/>
        <param name="ConnectionTimeout" type="Value::Int1" x="15"/>
      </section>
    </settings>

    """
}
