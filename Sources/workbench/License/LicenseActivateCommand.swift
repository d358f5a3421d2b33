import ArgumentParser
import Diagnostics
import Foundation
import LicenseActivation
import Licensing
import Settings

struct LicenseActivateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "activate",
    abstract: "Get a license from the activation server of license.conf and store it.",
    discussion: """
      Sends EID, ProductID and this machine's fingerprint (none in container mode) to Server, \
      checks the license it answers with against --public-key and stores it at Filename. When \
      Filename already holds a license that holds on this machine, the server is not asked \
      (--force asks anyway). Waits ConnectionTimeout seconds at most (0: forever). An \
      unreachable server, a refusal, a timeout and an answer that is not a license each exit \
      with 3.
      """)

  @Option(
    name: .long,
    help: ArgumentHelp(
      "license.conf (XML) or vllicense.plist (default: configs/license.conf).", valueName: "file"))
  var config: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "The public key that checks the license (default: license-public.key.json beside the configuration).",
      valueName: "file"))
  var publicKey: String?

  @Flag(name: .long, help: "Ask the server even when the license file already holds a valid license.")
  var force = false

  func run() throws {
    let activator: LicenseActivator
    do throws(WorkbenchError) {
      let path: String
      if let config { path = config } else { path = try defaultLicenseConfigPath() }
      let key = try LicensePublicKey.read(path: publicKey ?? LicenseGate.defaultPublicKeyPath(besides: path))
      activator = LicenseActivator(
        config: try LicenseConfigLoader.load(path: path), verifier: LicenseVerifier(publicKeys: [key]),
        fingerprint: MachineFingerprint.current())
    } catch {
      throw fail(error)
    }
    let licensePath = activator.config.licensePath
    let force = force
    let outcome: ActivationOutcome
    do {
      outcome = try Blocking.run { () async throws(ActivationError) -> ActivationOutcome in
        try await activator.activate(force: force)
      }
    } catch {
      throw fail(error.error)
    }
    let now = Date()
    switch outcome {
    case .alreadyActivated(let license):
      standardOutput(
        "\(licensePath) already holds a license for this machine; the server was not asked "
          + "(--force activates again)")
      standardOutput(LicenseReport.table(LicenseReport.describe(license, fingerprint: activator.fingerprint, now: now)))
    case .activated(let license, let replaced):
      if let replaced {
        var reasons: [String] = []
        for failure in replaced.failures where !reasons.contains(failure.kind.summary) {
          reasons.append(failure.kind.summary)
        }
        standardOutput("replaced \(licensePath), which did not hold here (\(reasons.joined(separator: ", ")))")
      }
      standardOutput("activated at \(activator.config.server): wrote \(licensePath)")
      standardOutput(LicenseReport.table(LicenseReport.describe(license, fingerprint: activator.fingerprint, now: now)))
    }
  }
}
