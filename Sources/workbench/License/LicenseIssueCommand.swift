import ArgumentParser
import Diagnostics
import Foundation
import LicenseActivation
import Licensing
import Settings

struct LicenseIssueCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "issue",
    abstract: "Sign a license for a product, an EID and one machine (or container mode).",
    discussion: """
      The license holds from now for --days days. Bind it to a machine with --fingerprint \
      (what `workbench license show` prints as "this machine" there) or --this-machine, or \
      to none with --container. An existing --out file is replaced.
      """)

  @Option(name: .long, help: ArgumentHelp("The private key file (private.key.json).", valueName: "file"))
  var key: String

  @Option(name: .long, help: ArgumentHelp("The product the license is for.", valueName: "id"))
  var product: String

  @Option(name: .long, help: ArgumentHelp("The customer's entitlement ID.", valueName: "eid"))
  var eid: String

  @Option(name: .long, help: ArgumentHelp("Bind to the machine with this fingerprint.", valueName: "hex"))
  var fingerprint: String?

  @Flag(name: .long, help: "Bind to this machine.")
  var thisMachine = false

  @Flag(name: .long, help: "Container mode: not bound to a machine.")
  var container = false

  @Option(name: .long, help: ArgumentHelp("How many days the license holds.", valueName: "n"))
  var days: Int

  @Option(
    name: .long, help: ArgumentHelp("The features it grants: card, face, plugins, record.", valueName: "list"))
  var features: String

  @Option(name: .long, help: ArgumentHelp("The license file to write.", valueName: "file"))
  var out: String

  func validate() throws {
    let bindings = [fingerprint != nil, thisMachine, container].filter { $0 }.count
    guard bindings == 1 else {
      throw ValidationError("give exactly one of --fingerprint HEX, --this-machine or --container")
    }
    if let fingerprint, MachineFingerprint(fingerprint) == nil {
      throw ValidationError("--fingerprint takes the \(MachineFingerprint.length) hex digits `license show` prints")
    }
  }

  func run() throws {
    let binding: LicenseBinding =
      container ? .container : .machine(fingerprint.flatMap(MachineFingerprint.init) ?? MachineFingerprint.current())
    let now = Date()
    do {
      let privateKey = try LicensePrivateKey.read(path: key)
      let data = try LicenseIssuer(privateKey: privateKey).issue(
        product: product, eid: eid, binding: binding, days: days, features: LicenseIssuer.features(fromList: features),
        now: now)
      try LicenseFiles.write(data, to: out, replacing: true)
      let inspection = LicenseVerifier(publicKeys: [privateKey.publicKey]).inspect(
        data: data, path: out, product: nil, fingerprint: MachineFingerprint.current(), now: now)
      if let license = inspection.license {
        standardOutput("wrote \(out)")
        standardOutput(LicenseReport.table(LicenseReport.describe(license, fingerprint: nil, now: now)))
      }
    } catch {
      throw fail(error)
    }
  }
}
