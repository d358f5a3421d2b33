import ArgumentParser
import Diagnostics
import Foundation
import LicenseActivation
import Licensing
import Settings

struct LicenseCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "license",
    abstract:
      "Activate a license, run an activation server, make keys, issue and show licenses, check license.conf, start a trial.",
    discussion: """
      A license (license.dat) is signed with Ed25519 and binds a product, an EID, a machine \
      (or container mode), an expiry and the features it grants. Every license problem exits \
      with 3 (docs/licensing.md).

      Examples:
        workbench license keygen --out keys
        workbench license serve --key keys/private.key.json --product workbench \\
          --allow ACME-1:3 --state activations.json
        workbench license activate --public-key keys/public.key.json
        workbench license issue --key keys/private.key.json --product workbench --eid ACME-1 \\
          --this-machine --days 365 --features card,face --out license.dat
        workbench license show --public-key keys/public.key.json
        workbench license check-config
        workbench license trial
      """,
    subcommands: [
      LicenseActivateCommand.self, LicenseServeCommand.self, LicenseKeygenCommand.self, LicenseIssueCommand.self,
      LicenseShowCommand.self, LicenseCheckConfigCommand.self, LicenseTrialCommand.self,
    ])
}
