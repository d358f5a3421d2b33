import ArgumentParser
import Diagnostics
import Foundation
import LicenseActivation
import Licensing
import Settings

struct LicenseShowCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "show",
    abstract: "Print what a license grants, until when, and whether it holds on this machine.",
    discussion: """
      Without --license, shows the license that `run` checks: Filename of license.conf \
      (--config, else configs/license.conf), for its ProductID and EID, checked with the \
      public key beside it (license-public.key.json) unless --public-key names one. \
      Exits 0 when the license verifies on this machine (and is for --product and grants \
      every --feature, when given), 3 otherwise, with every reason on standard error.
      """)

  @Option(name: .long, help: ArgumentHelp("The license file (default: Filename of license.conf).", valueName: "file"))
  var license: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "license.conf (XML) or vllicense.plist (default: configs/license.conf).", valueName: "file"))
  var config: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "The public key that checks the license (default: license-public.key.json beside license.conf).",
      valueName: "file"))
  var publicKey: String?

  @Option(name: .long, help: ArgumentHelp("Also check that the license is for this product.", valueName: "id"))
  var product: String?

  @Option(
    name: .customLong("feature"),
    help: ArgumentHelp("Also check that the license grants this feature (repeatable).", valueName: "name"))
  var features: [String] = []

  func run() throws {
    var licensePath = license
    var product = product
    var eid: String?
    let keyPath: String
    do throws(WorkbenchError) {
      if license == nil || config != nil {
        let gate = LicenseGate.locate(
          configOption: config, publicKeyOption: publicKey, folders: try licenseConfigFolders())
        let loaded = try LicenseConfigLoader.load(path: gate.configPath)
        licensePath = licensePath ?? loaded.licensePath
        product = product ?? loaded.productID
        eid = loaded.eid
        keyPath = gate.publicKeyPath
      } else if let publicKey {
        keyPath = publicKey
      } else {
        keyPath =
          LicenseGate.locate(
            configOption: nil, publicKeyOption: nil, folders: try licenseConfigFolders()
          ).publicKeyPath
      }
    } catch {
      throw fail(error)
    }
    let key: LicensePublicKey
    do { key = try LicensePublicKey.read(path: keyPath) } catch { throw fail(error) }
    let fingerprint = MachineFingerprint.current()
    let now = Date()
    let inspection = LicenseVerifier(publicKeys: [key]).inspect(
      path: licensePath ?? LicenseConfig.defaultFilename, product: product, eid: eid, fingerprint: fingerprint,
      now: now, requiredFeatures: features)
    standardOutput(LicenseReport.render(inspection, fingerprint: fingerprint, now: now))
    if let error = inspection.error { throw fail(error) }
  }
}
