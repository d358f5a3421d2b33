import ArgumentParser
import Diagnostics
import Flows
import Foundation
import Licensing

struct LicenseCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "license",
    abstract: "Make signing keys, issue licenses, show a license and check license.conf.",
    discussion: """
      A license (license.dat) is signed with Ed25519 and binds a product, an EID, a machine \
      (or container mode), an expiry and the features it grants. Every license problem exits \
      with 3 (docs/licensing.md).

      Examples:
        workbench license keygen --out keys
        workbench license issue --key keys/private.key.json --product workbench --eid ACME-1 \\
          --this-machine --days 365 --features card,face --out license.dat
        workbench license show --public-key keys/public.key.json
        workbench license check-config
      """,
    subcommands: [
      LicenseKeygenCommand.self, LicenseIssueCommand.self, LicenseShowCommand.self, LicenseCheckConfigCommand.self,
    ])
}

struct LicenseKeygenCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "keygen",
    abstract: "Make a new Ed25519 key pair for signing licenses.",
    discussion: """
      Writes private.key.json (mode 0600: it signs licenses, keep it secret) and \
      public.key.json (it checks them) into the folder, which is made when missing. \
      Never overwrites a key.
      """)

  @Option(name: .long, help: ArgumentHelp("The folder for the two key files.", valueName: "dir"))
  var out: String

  func run() throws {
    let pair = LicenseKeyPair.generate()
    let paths: (privateKeyPath: String, publicKeyPath: String)
    do { paths = try pair.write(toFolder: out) } catch { throw fail(error) }
    standardOutput("wrote \(paths.privateKeyPath) (the signing key: keep it secret)")
    standardOutput("wrote \(paths.publicKeyPath) (\(pair.publicKey))")
  }
}

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

struct LicenseShowCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "show",
    abstract: "Print what a license grants, until when, and whether it holds on this machine.",
    discussion: """
      Exits 0 when the license verifies on this machine (and is for --product and grants \
      every --feature, when given), 3 otherwise, with every reason on standard error.
      """)

  @Option(name: .long, help: ArgumentHelp("The license file.", valueName: "file"))
  var license: String = LicenseConfig.defaultFilename

  @Option(name: .long, help: ArgumentHelp("The public key that checks the license.", valueName: "file"))
  var publicKey: String

  @Option(name: .long, help: ArgumentHelp("Also check that the license is for this product.", valueName: "id"))
  var product: String?

  @Option(
    name: .customLong("feature"),
    help: ArgumentHelp("Also check that the license grants this feature (repeatable).", valueName: "name"))
  var features: [String] = []

  func run() throws {
    let key: LicensePublicKey
    do { key = try LicensePublicKey.read(path: publicKey) } catch { throw fail(error) }
    let fingerprint = MachineFingerprint.current()
    let now = Date()
    let inspection = LicenseVerifier(publicKeys: [key]).inspect(
      path: license, product: product, fingerprint: fingerprint, now: now, requiredFeatures: features)
    standardOutput(LicenseReport.render(inspection, fingerprint: fingerprint, now: now))
    if let error = inspection.error { throw fail(error) }
  }
}

struct LicenseCheckConfigCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "check-config",
    abstract: "Check license.conf (or vllicense.plist) and print the effective values.",
    discussion: """
      Without --config, reads configs/license.conf of the workbench folder. Lists every \
      problem, each with its key and rule, and exits 3 when there is one.
      """)

  @Option(
    name: .long, help: ArgumentHelp("license.conf (XML) or vllicense.plist.", valueName: "file"))
  var config: String?

  func run() throws {
    let path: String
    if let config {
      path = config
    } else {
      do { path = WorkbenchHome.display(try WorkbenchHome.locate().configs + "/license.conf") } catch {
        throw fail(error)
      }
    }
    do {
      standardOutput(try LicenseConfigLoader.load(path: path).render())
    } catch {
      DiagnosticPrinter.print(error)
      let count = error.diagnostics.count
      standardError("\(count) problem\(count == 1 ? "" : "s") in \(path)")
      throw ExitCode(error.status.rawValue)
    }
  }
}
