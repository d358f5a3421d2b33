import ArgumentParser
import Diagnostics
import Foundation
import LicenseActivation
import Licensing
import Settings

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
