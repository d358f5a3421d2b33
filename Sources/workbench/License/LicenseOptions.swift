import ArgumentParser
import Diagnostics
import Licensing
import Settings

/// Where `run` and `record` find the license they check before opening
/// the input (docs/licensing.md).
struct LicenseOptions: ParsableArguments {
  @Option(
    name: .customLong("license-config"),
    help: ArgumentHelp(
      "license.conf or vllicense.plist (default: \(LicenseGate.configEnvironment), else the one in --settings-dir, /etc/workbench, ~/.config/workbench, else configs/license.conf).",
      valueName: "file"))
  var licenseConfig: String?

  @Option(
    name: .customLong("license-key"),
    help: ArgumentHelp(
      "The public key that checks the license (default: \(LicenseGate.publicKeyEnvironment), else \(LicenseGate.publicKeyFileName) beside the configuration).",
      valueName: "file"))
  var licenseKey: String?

  func gate(settingsDirectory: String?) -> LicenseGate {
    var folders: [String] = []
    if let settingsDirectory { folders.append(settingsDirectory) }
    if let home = try? WorkbenchHome.locate() { folders += home.licenseFolders }
    return LicenseGate.locate(configOption: licenseConfig, publicKeyOption: licenseKey, folders: folders)
  }
}
