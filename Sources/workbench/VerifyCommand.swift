import ArgumentParser
import Diagnostics
import Foundation
import Integrity
import Licensing

struct VerifyCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "verify",
    abstract: "Check a run's signed artifacts: the recording, its timestamps and the captured images.",
    discussion: """
      A run with --artifacts DIR and the setting integrity.signing_key writes DIR/signature.json: \
      the SHA-256 of every artifact (and of the --record recording and its timestamps), the \
      run's timestamps (start, each capture, stop) and its result, signed with Ed25519. verify \
      checks the signature with the public key, then every file. Exits 0 when everything \
      verifies, 1 when the signature or a file does not, 2 when there is no signature or key.

      Example:
        workbench run examples/hkid-2018.lua --input card.avi --record out/card.avi \\
          --artifacts out --set integrity.signing_key=keys/private.key.json
        workbench verify out --public-key keys/public.key.json
      """)

  @Argument(help: ArgumentHelp("The --artifacts folder, or its signature.json.", valueName: "path"))
  var path: String

  @Option(name: .long, help: ArgumentHelp("The public key of the key that signed.", valueName: "file"))
  var publicKey: String

  func run() throws {
    let verification: ArtifactSignature.Verification
    do {
      let key = try LicensePublicKey.read(path: publicKey)
      verification = try ArtifactSignature.verify(path: path, publicKey: key)
    } catch {
      throw fail(error)
    }
    if let manifest = verification.manifest {
      standardOutput("flow        \(manifest.flow) (result \(manifest.resultCode), \(manifest.resultReason))")
      standardOutput(
        "timestamps  "
          + manifest.timestamps.map { "\($0.name) \(String(format: "%.3f", $0.t)) s" }.joined(separator: " | "))
      for file in manifest.files { standardOutput("file        \(file.path)  \(file.sha256.prefix(16))…") }
    }
    if verification.verifies {
      standardOutput("verifies    yes")
      return
    }
    standardOutput("verifies    no")
    DiagnosticPrinter.print(WorkbenchError(.failed, verification.problems))
    throw ExitCode(ExitStatus.failed.rawValue)
  }
}
